import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { serialize } from 'node:v8';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import type { WorkerReply } from './worker-tasks.js';

/**
 * Where a pool runs its tasks. `'thread'`: a worker thread, cheap to start, but a heap limit is
 * only a soft limit there: a large allocation that does not fit aborts the whole process (measured:
 * an array doubling in a thread limited to 256 MB ended the parent with `FATAL ERROR: Reached heap
 * limit`), and buffers outside the heap are not counted at all. `'process'`: a child process, whose
 * out-of-memory abort ends only itself, and whose resident memory (heap, buffers, native) is read
 * from the operating system and capped.
 */
export type Isolation = 'thread' | 'process';

/** The environment variable that carries `workerData` to a child process (V8-serialized, base64). */
export const WORKER_DATA_ENV = 'RAGDESK_WORKER_DATA';

export interface RunnerEvents {
  message: (reply: WorkerReply) => void;
  /** A thread's `error` event (a failed start, an out-of-memory stop); a child that could not be spawned. */
  failed: (error: Error & { code?: string }) => void;
  /** `signal` is set when the child was ended by one (an out-of-memory abort is SIGABRT). */
  exited(code: number | null, signal: NodeJS.Signals | null): void;
}

export interface TaskRunner {
  post(message: Record<string, unknown>): void;
  /** Keep the process alive while a task runs; an idle runner never does. */
  ref(): void;
  unref(): void;
  terminate(): Promise<unknown>;
  /** Resident memory of a child process in bytes (Linux); undefined for a thread or elsewhere. */
  residentBytes(): number | undefined;
}

export function startRunner(
  isolation: Isolation,
  entry: string,
  options: { workerData: unknown; maxHeapMb: number; startThread: (entry: string, options: WorkerOptions) => Worker },
  events: RunnerEvents,
): TaskRunner {
  return isolation === 'process' ? startChild(entry, options, events) : startThread(entry, options, events);
}

function startThread(
  entry: string,
  options: { workerData: unknown; maxHeapMb: number; startThread: (entry: string, options: WorkerOptions) => Worker },
  events: RunnerEvents,
): TaskRunner {
  const worker = options.startThread(entry, {
    workerData: options.workerData,
    resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb },
  });
  worker.on('message', events.message);
  worker.on('error', events.failed);
  worker.on('exit', (code) => events.exited(code, null));
  return {
    post: (message) => worker.postMessage(message),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
    terminate: () => worker.terminate(),
    residentBytes: () => undefined,
  };
}

function startChild(entry: string, options: { workerData: unknown; maxHeapMb: number }, events: RunnerEvents): TaskRunner {
  const child: ChildProcess = fork(entry, [], {
    // Only the heap limit: the parent's own Node options (test loaders, --input-type) are not the child's business.
    execArgv: [`--max-old-space-size=${options.maxHeapMb}`],
    // Structured clone over the channel, so file bytes travel as bytes and Infinity stays Infinity.
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, [WORKER_DATA_ENV]: serialize(options.workerData).toString('base64') },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.on('message', (reply) => events.message(reply as WorkerReply));
  child.on('error', events.failed);
  child.on('exit', (code, signal) => events.exited(code, signal));
  return {
    post: (message) => {
      child.send(message);
    },
    ref: () => {
      child.ref();
      child.channel?.ref();
    },
    unref: () => {
      child.unref();
      child.channel?.unref();
    },
    terminate: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        // An idle child is unref-ed: without this, awaiting its exit could leave the loop empty.
        child.ref();
        child.kill('SIGKILL');
      }
      await exited;
    },
    residentBytes: () => {
      if (child.pid === undefined || process.platform !== 'linux') return undefined;
      try {
        // statm: size resident shared ... in pages; 4 KiB pages on the platforms Node runs on.
        const resident = Number(readFileSync(`/proc/${child.pid}/statm`, 'utf8').split(' ')[1]);
        return Number.isFinite(resident) ? resident * 4096 : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
