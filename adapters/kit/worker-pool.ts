import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { RagdeskError, type RagdeskErrorCode } from '../../src/errors.js';
import { choiceOption, integerOption } from './option-checks.js';
import { startRunner, type Isolation, type TaskRunner } from './task-runner.js';
import type { SerializedError } from './worker-tasks.js';

/**
 * CPU-bound work (parsing) on worker threads: a small pool of threads running one module, one task
 * per thread at a time. A task that is aborted, runs over its time limit or over its heap limit
 * ends its thread; the next task gets a fresh one. An in-process parse can only be abandoned while
 * it keeps burning the CPU and memory, and it blocks the event loop for as long as it runs.
 */

export interface WorkerPoolOptions {
  /** Compiled worker module (see `workerEntry`); it serves tasks with `serveWorkerTasks`. */
  entry: string;
  /** Passed to every thread as `workerData` (structured-cloned). */
  workerData?: unknown;
  /** Threads (default 1). */
  threads?: number;
  /** A task taking longer ends its thread and fails with `invalid_request` (default 300,000). */
  timeoutMs?: number;
  /** Heap limit of a thread in MB; a task that needs more fails with `invalid_request` (default 2,048). */
  maxHeapMb?: number;
  /** An idle thread is ended after this long and started again when needed (default 30,000). */
  idleMs?: number;
  /** `'thread'` (default) or `'process'`: see {@link Isolation}. */
  isolation?: Isolation;
  /**
   * With `isolation: 'process'` on Linux: a task whose process holds more resident memory than this
   * (heap, buffers and native allocations alike) is stopped and fails like one over its heap limit.
   * Checked every 50 ms. Default: no limit beyond the heap's.
   */
  maxMemoryMb?: number;
}

interface WorkerTask {
  /** Posted to the thread (structured-cloned), with an `id` added. */
  message: Record<string, unknown>;
  /** What the task reads, for error messages: a file name, a URL. */
  subject: string;
  /** The type being parsed, carried in error details as loader errors do. */
  mimeType: string;
  signal?: AbortSignal;
  /**
   * Whose task this is (an owner id). Queued tasks are started round-robin across owners, so one
   * owner's many slow files do not hold back another owner's small one; tasks without an owner
   * share one turn.
   */
  owner?: string;
  /**
   * Started only when its owner has no queued task without this flag: work the owner did not ask
   * for (a visitor's attachment) waits behind the owner's own, inside the owner's turn; when every
   * thread is busy, a running one gives its thread up to the owner's own queued task.
   */
  yieldsToOwner?: boolean;
}

export interface WorkerPool {
  run(task: WorkerTask): Promise<unknown>;
  /** Ends every thread; tasks in flight and queued fail with `closed`. */
  close(): Promise<void>;
}

const DEFAULT_TASK_TIMEOUT_MS = 300_000;
export const DEFAULT_WORKER_HEAP_MB = 2_048;
const DEFAULT_IDLE_MS = 30_000;

interface Job {
  task: WorkerTask;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  onAbort: () => void;
  timer?: NodeJS.Timeout;
}

interface Slot {
  runner: TaskRunner;
  job: Job | null;
  requestId: number;
  idleTimer?: NodeJS.Timeout;
  memoryTimer?: NodeJS.Timeout;
}

const MEMORY_CHECK_MS = 50;

export function workerPool(options: WorkerPoolOptions): WorkerPool {
  const threads = integerOption('workerPool', 'threads', options.threads, 1);
  const timeoutMs = integerOption('workerPool', 'timeoutMs', options.timeoutMs, DEFAULT_TASK_TIMEOUT_MS);
  const maxHeapMb = integerOption('workerPool', 'maxHeapMb', options.maxHeapMb, DEFAULT_WORKER_HEAP_MB);
  const idleMs = integerOption('workerPool', 'idleMs', options.idleMs, DEFAULT_IDLE_MS);
  const isolation = choiceOption('workerPool', 'isolation', options.isolation, ['thread', 'process'], 'thread');
  const maxMemoryMb = options.maxMemoryMb === undefined ? undefined : integerOption('workerPool', 'maxMemoryMb', options.maxMemoryMb, 1);
  const queue: Job[] = [];
  /** When each owner last had a task started (a counter): the owner waiting longest goes next. */
  const turns = new Map<string, number>();
  let turnCounter = 0;
  const slots = new Set<Slot>();
  let nextRequestId = 0;
  let closed = false;

  const settle = (job: Job, error: unknown, value?: unknown) => {
    clearTimeout(job.timer);
    job.task.signal?.removeEventListener('abort', job.onAbort);
    if (error === undefined) job.resolve(value);
    else job.reject(error);
  };

  const pump = () => {
    while (queue.length > 0) {
      let slot = [...slots].find((candidate) => candidate.job === null);
      if (!slot && slots.size < threads) {
        try {
          slot = spawn();
        } catch (error) {
          // A thread that cannot even start (its module removed, options refused) fails the task
          // that needed it, rather than leaving it queued behind an exception.
          settle(
            queue.shift() as Job,
            new RagdeskError('internal', `A worker thread could not start: ${(error as Error).message}`, { cause: error }),
          );
          continue;
        }
      }
      if (!slot) return void preemptForOwner();
      start(slot, takeFairly());
    }
  };

  /**
   * All threads busy: a task that yields to its owner gives its thread up to a queued task of that
   * owner's own. It fails (`aborted`, reason `yielded_to_owner`) and its thread is replaced, so the
   * owner waits for a thread to start rather than for a visitor's file (a PDF bomb takes seconds).
   */
  const preemptForOwner = () => {
    for (const job of queue) {
      if (job.task.yieldsToOwner === true) continue;
      const owner = job.task.owner ?? '';
      const running = [...slots].find((slot) => slot.job?.task.yieldsToOwner === true && (slot.job.task.owner ?? '') === owner);
      if (!running) continue;
      const subject = running.job!.task.subject;
      void stop(
        running,
        new RagdeskError('aborted', `Parsing ${subject} stopped: its owner's own file needed the parser`, {
          details: { reason: 'yielded_to_owner' },
        }),
      );
      return;
    }
  };

  /**
   * The oldest queued task of the owner served longest ago (an owner not served yet comes first),
   * its own tasks before those that yield to it.
   */
  const takeFairly = (): Job => {
    let chosen = 0;
    let chosenTurn = Infinity;
    const looked = new Set<string>();
    for (let index = 0; index < queue.length; index++) {
      const owner = queue[index]!.task.owner ?? '';
      if (looked.has(owner)) continue;
      looked.add(owner);
      const turn = turns.get(owner) ?? -1;
      if (turn < chosenTurn) {
        chosen = index;
        chosenTurn = turn;
      }
    }
    if (queue[chosen]!.task.yieldsToOwner === true) {
      const owner = queue[chosen]!.task.owner ?? '';
      const own = queue.findIndex((job) => (job.task.owner ?? '') === owner && job.task.yieldsToOwner !== true);
      if (own !== -1) chosen = own;
    }
    const [job] = queue.splice(chosen, 1) as [Job];
    turns.set(job.task.owner ?? '', turnCounter++);
    if (turns.size > queue.length + threads + 16) forgetIdleOwners();
    return job;
  };

  /** Owners with nothing queued are forgotten, so the map stays about as small as the queue. */
  const forgetIdleOwners = () => {
    const queued = new Set(queue.map((job) => job.task.owner ?? ''));
    for (const owner of turns.keys()) if (!queued.has(owner)) turns.delete(owner);
  };

  const start = (slot: Slot, job: Job) => {
    clearTimeout(slot.idleTimer);
    slot.job = job;
    slot.requestId = nextRequestId++;
    // A thread with work keeps the process alive until the caller's await settles; an idle one never does.
    slot.runner.ref();
    job.timer = setTimeout(() => void stop(slot, timedOut(job.task, timeoutMs)), timeoutMs);
    if (maxMemoryMb !== undefined && slot.runner.residentBytes() !== undefined) {
      slot.memoryTimer = setInterval(() => {
        const resident = slot.runner.residentBytes();
        if (resident !== undefined && resident > maxMemoryMb * 1024 * 1024 && slot.job === job) {
          void stop(slot, outOfMemory(job.task, maxHeapMb, undefined, maxMemoryMb));
        }
      }, MEMORY_CHECK_MS).unref();
    }
    slot.runner.post({ ...job.task.message, id: slot.requestId });
  };

  const spawn = (): Slot => {
    const slot = { job: null, requestId: -1 } as unknown as Slot;
    slot.runner = startRunner(
      isolation,
      options.entry,
      { workerData: options.workerData, maxHeapMb, startThread: startWorker },
      {
        message: (reply) => {
          const job = slot.job;
          if (!job || reply.id !== slot.requestId) return;
          slot.job = null;
          clearInterval(slot.memoryTimer);
          slot.runner.unref();
          slot.idleTimer = setTimeout(() => void stop(slot, undefined), idleMs).unref();
          settle(job, reply.ok ? undefined : revive(reply.error), reply.ok ? reply.value : undefined);
          pump();
        },
        failed: (error) => {
          if (!slots.has(slot)) return;
          const failure =
            error.code === 'ERR_WORKER_OUT_OF_MEMORY' && slot.job
              ? outOfMemory(slot.job.task, maxHeapMb, error)
              : new RagdeskError('internal', `A worker ${isolation} stopped: ${error.message}`, { cause: error });
          void stop(slot, failure);
        },
        exited: (code, signal) => {
          if (!slots.has(slot)) return;
          // V8 ends a process that runs out of heap with an abort: that is the task's memory, not a crash.
          const aborted = signal === 'SIGABRT' || code === 134;
          const failure =
            aborted && slot.job
              ? outOfMemory(slot.job.task, maxHeapMb, undefined)
              : new RagdeskError('internal', `A worker ${isolation} exited with ${signal ?? `code ${code}`}`);
          void stop(slot, failure);
        },
      },
    );
    slots.add(slot);
    return slot;
  };

  /** Ends a thread; its task, if any, fails with `error`. Queued tasks get a new thread. */
  const stop = (slot: Slot, error: unknown): Promise<unknown> => {
    slots.delete(slot);
    clearTimeout(slot.idleTimer);
    clearInterval(slot.memoryTimer);
    const job = slot.job;
    slot.job = null;
    if (job) settle(job, error ?? new RagdeskError('internal', 'A worker thread stopped'));
    const ended = slot.runner.terminate();
    if (!closed) pump();
    return ended;
  };

  return {
    run: (task) => {
      if (closed) return Promise.reject(new RagdeskError('closed', 'The worker pool is closed'));
      if (task.signal?.aborted) return Promise.reject(task.signal.reason);
      return new Promise((resolvePromise, rejectPromise) => {
        const job: Job = {
          task,
          resolve: resolvePromise,
          reject: rejectPromise,
          onAbort: () => {
            const running = [...slots].find((slot) => slot.job === job);
            if (running) void stop(running, task.signal?.reason);
            else {
              queue.splice(queue.indexOf(job), 1);
              settle(job, task.signal?.reason);
            }
          },
        };
        task.signal?.addEventListener('abort', job.onAbort, { once: true });
        queue.push(job);
        pump();
      });
    },
    close: async () => {
      if (closed) return;
      closed = true;
      const closing = new RagdeskError('closed', 'The worker pool is closed');
      for (const job of queue.splice(0)) settle(job, closing);
      await Promise.all([...slots].map((slot) => stop(slot, closing)));
    },
  };
}

/**
 * The worker module at `url`, given beside the module that starts the pool:
 * `workerEntry(new URL('./parse-worker.js', import.meta.url))`. The URL is the compiled file's
 * (Node 20 cannot start a `.ts` worker); this repository's tests run the TypeScript sources, and
 * vitest.config.ts points such URLs at the build in `dist/`. Throws `invalid_adapter` when the file
 * is missing, so a broken install fails where the pool is configured, not at the first upload.
 */
export function workerEntry(url: URL): string {
  const path = fileURLToPath(url);
  if (existsSync(path)) return path;
  throw new RagdeskError(
    'invalid_adapter',
    `The worker thread's code is missing (looked for ${path}); pass \`parser: 'main'\` to parse on the main thread instead`,
  );
}

/** Options that only make sense for a `--eval` script; a thread started from a file refuses them. */
const EVAL_ONLY = new Set(['--input-type', '-e', '--eval', '-p', '--print']);
const isEvalOnly = (arg: string) => EVAL_ONLY.has(arg.split('=', 1)[0] as string);

/**
 * Threads inherit the process's Node options, and one started from a file fails on `--input-type`
 * (a `node --input-type=module -e '...'` script could never parse a file). Only then is `execArgv`
 * given, without the eval options; Node then also refuses per-process options such as
 * `--expose-gc` that it tolerates when inheriting, and names them, so those are dropped too.
 */
export function startWorker(entry: string, options: WorkerOptions): Worker {
  if (!process.execArgv.some(isEvalOnly)) return new Worker(entry, options);
  const execArgv = workerExecArgv(process.execArgv);
  try {
    return new Worker(entry, { ...options, execArgv });
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw error;
    const named = (error as Error).message.slice((error as Error).message.indexOf(': ') + 2).split(', ');
    return new Worker(entry, { ...options, execArgv: execArgv.filter((arg) => !named.includes(arg)) });
  }
}

/** The process's Node options minus the eval ones (and the script that follows `-e`). */
export function workerExecArgv(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i] as string;
    if (!isEvalOnly(arg)) kept.push(arg);
    else if (!arg.includes('=')) i++; // its value is the next argument
  }
  return kept;
}

function revive(error: SerializedError): Error {
  if (error.code === undefined) return new Error(error.message);
  return new RagdeskError(error.code as RagdeskErrorCode, error.message, {
    ...(error.status === undefined ? {} : { status: error.status }),
    ...(error.details === undefined ? {} : { details: error.details }),
    ...(error.retryable === undefined ? {} : { retryable: error.retryable }),
  });
}

function timedOut(task: WorkerTask, timeoutMs: number): RagdeskError {
  return new RagdeskError('invalid_request', `could not parse ${task.subject}: parsing took longer than ${timeoutMs} ms`, {
    details: { mimeType: task.mimeType, reason: 'parse_timeout', timeoutMs },
  });
}

function outOfMemory(task: WorkerTask, maxHeapMb: number, cause: Error | undefined, maxMemoryMb?: number): RagdeskError {
  const limit = maxMemoryMb === undefined ? `${maxHeapMb} MB of heap` : `${maxMemoryMb} MB of memory`;
  return new RagdeskError('invalid_request', `could not parse ${task.subject}: the parser needed more than ${limit}`, {
    ...(cause === undefined ? {} : { cause }),
    details: { mimeType: task.mimeType, reason: 'parser_out_of_memory', maxHeapMb, ...(maxMemoryMb === undefined ? {} : { maxMemoryMb }) },
  });
}
