import { createRequire } from 'node:module';
import { resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * WAL checkpoints on a worker thread.
 *
 * Why: SQLite's automatic checkpoint runs inside the commit that pushes the WAL past 1000 pages,
 * on the thread that commits. With 16 KiB pages that is a 16 MB copy plus an fsync: bench:ingest
 * measured 55-68 ms `replaceChunks` calls (median 1.2 ms) and they were the longest event-loop
 * stalls of ingestion. A checkpoint needs no lock the writer holds (PASSIVE mode copies what no
 * reader still needs and never blocks), so a second connection on a worker thread can do it while
 * the main thread keeps serving. The main connection keeps a much larger automatic threshold as a
 * safety net, so the WAL stays bounded even if the worker falls behind or dies.
 */

/** Pages after which the main connection still checkpoints by itself (16 KiB pages: 256 MiB). */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 16_384;
/** SQLite's own default, restored when the worker cannot run. */
const SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES = 1_000;
/** How often, at most, the worker is asked to checkpoint while writes happen. */
const DEFAULT_INTERVAL_MS = 200;

interface CheckpointResult {
  /** Frames in the WAL when the checkpoint ran. */
  walFrames: number;
  /** Frames copied into the database file (all of them unless a reader still needed some). */
  checkpointedFrames: number;
}

export interface Checkpointer {
  /** Something may have been written: a checkpoint is due at the next tick. */
  noteWrite(): void;
  /** Checkpoints now and resolves when the worker has done it (tests, close). */
  checkpoint(): Promise<CheckpointResult>;
  /** Stops the timer and the worker; the main connection's close does the final checkpoint. */
  close(): Promise<void>;
}

export interface CheckpointerOptions {
  /** Database file (not `:memory:`). */
  path: string;
  /** Sets the main connection's automatic checkpoint threshold (pages; 0 = off). */
  setAutocheckpoint(pages: number): void;
  intervalMs?: number;
}

// The worker is evaluated from source so it works the same from `src` (tests) and from `dist`. Eval
// code runs as CommonJS or, when the process was started with `--input-type=module`, as ESM: only
// dynamic import works in both. The driver is loaded by the URL resolved here, never from the
// process's working directory.
const WORKER_SOURCE = `
(async () => {
  const { parentPort, workerData } = await import('node:worker_threads');
  const { default: Database } = await import(workerData.driverUrl);
  const db = new Database(workerData.path, { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  parentPort.on('message', (message) => {
    if (message.type === 'close') {
      db.close();
      parentPort.close();
      return;
    }
    try {
      const [row] = db.pragma('wal_checkpoint(PASSIVE)');
      parentPort.postMessage({ id: message.id, walFrames: row.log, checkpointedFrames: row.checkpointed });
    } catch (error) {
      parentPort.postMessage({ id: message.id, error: String((error && error.message) || error) });
    }
  });
})().catch((error) => {
  // Rethrown outside the promise so it reaches the parent as the worker's 'error' event.
  setImmediate(() => { throw error; });
});
`;

interface WorkerReply {
  id: number;
  walFrames?: number;
  checkpointedFrames?: number;
  error?: string;
}

export function startCheckpointer(options: CheckpointerOptions): Checkpointer {
  const driverUrl = pathToFileURL(createRequire(import.meta.url).resolve('better-sqlite3')).href;
  // Absolute, so a later `process.chdir` in the caller cannot point the worker at another file.
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path: resolvePath(options.path), driverUrl } });
  // An idle worker must never keep a process alive that is otherwise done; one with a request or a
  // close in flight must, or the process would exit with the caller's await never settled (a
  // script's `await ragdesk.close()` would end the process before the database is closed).
  worker.unref();
  let refs = 0;
  const hold = () => {
    if (refs++ === 0) worker.ref();
  };
  const release = () => {
    if (--refs === 0) worker.unref();
  };
  options.setAutocheckpoint(FALLBACK_AUTOCHECKPOINT_PAGES);

  const pending = new Map<number, { resolve(result: CheckpointResult): void; reject(error: Error): void }>();
  let nextId = 0;
  let dirty = false;
  let inFlight = false;
  let failed: Error | null = null;
  let closing: Promise<void> | null = null;

  const fail = (error: Error) => {
    if (failed) return;
    failed = error;
    // Back to SQLite's own checkpoints on the main thread: slower turns, but the WAL stays bounded.
    options.setAutocheckpoint(SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES);
    process.emitWarning(`ragdesk sqlite: the WAL checkpoint worker stopped (${error.message}); checkpoints run on the main thread again`);
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
    clearInterval(timer);
  };

  worker.on('message', (reply: WorkerReply) => {
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if (!waiter) return;
    if (reply.error !== undefined) waiter.reject(new Error(reply.error));
    else waiter.resolve({ walFrames: reply.walFrames ?? 0, checkpointedFrames: reply.checkpointedFrames ?? 0 });
  });
  // Once closing, an error is the worker losing a race with the close (the store closed, and its
  // folder perhaps removed, before the worker had opened the file): nothing is left to checkpoint.
  worker.on('error', (error) => {
    if (!closing) fail(error);
  });
  worker.on('exit', (code) => {
    if (!closing) fail(new Error(`worker exited with code ${code}`));
  });

  const request = (): Promise<CheckpointResult> => {
    if (failed) return Promise.reject(failed);
    if (closing) return Promise.reject(new Error('checkpointer closed'));
    const id = nextId++;
    hold();
    return new Promise<CheckpointResult>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ type: 'checkpoint', id });
    }).finally(release);
  };

  const timer = setInterval(() => {
    if (!dirty || inFlight || failed || closing) return;
    dirty = false;
    inFlight = true;
    // A failed checkpoint (SQLITE_BUSY while another process checkpoints) is retried at the next write.
    request()
      .catch(() => undefined)
      .finally(() => {
        inFlight = false;
      });
  }, options.intervalMs ?? DEFAULT_INTERVAL_MS);
  timer.unref();

  return {
    noteWrite() {
      dirty = true;
    },
    checkpoint: request,
    close() {
      closing ??= (async () => {
        clearInterval(timer);
        if (failed) return;
        const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
        hold();
        worker.postMessage({ type: 'close' });
        await exited;
        for (const waiter of pending.values()) waiter.reject(new Error('checkpointer closed'));
        pending.clear();
      })();
      return closing;
    },
  };
}
