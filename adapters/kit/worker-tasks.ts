import { deserialize } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { RagdeskError } from '../../src/errors.js';
import { WORKER_DATA_ENV } from './task-runner.js';

/** An error crossing the thread boundary: a `RagdeskError`'s fields, or a plain error's message. */
export interface SerializedError {
  code?: string;
  status?: number;
  message: string;
  details?: Record<string, unknown>;
  retryable?: boolean;
}

export type WorkerReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: SerializedError };

/** The pool's `workerData`, in a thread or in a child process (`isolation: 'process'`). */
export function workerInput(): unknown {
  if (parentPort) return workerData;
  const encoded = process.env[WORKER_DATA_ENV];
  return encoded === undefined ? undefined : deserialize(Buffer.from(encoded, 'base64'));
}

interface Port {
  onMessage(listener: (message: unknown) => void): void;
  postMessage(message: unknown): void;
}

/** The channel to the pool: the thread's port, or the child process's IPC channel. */
function poolPort(): Port | null {
  const thread = parentPort;
  if (thread)
    return { onMessage: (listener) => void thread.on('message', listener), postMessage: (message) => thread.postMessage(message) };
  const send = process.send?.bind(process);
  if (!send) return null;
  // The pool is gone (crashed or killed): nothing will ever ask this process for work again.
  process.on('disconnect', () => process.exit(0));
  return { onMessage: (listener) => void process.on('message', listener), postMessage: (message) => void send(message) };
}

/**
 * The runner side of `workerPool`: answers each task message with `handle`'s result or error.
 * The pool sends one task at a time per thread or process.
 */
export function serveWorkerTasks<Message extends { id: number }>(handle: (message: Message) => Promise<unknown>): void {
  const port = poolPort();
  if (!port) throw new Error('This module runs as a worker thread or process, started by a worker pool');
  port.onMessage((received) => {
    const message = received as Message;
    // Through a promise, so a handler that throws before returning one is answered too.
    void Promise.resolve(message)
      .then(handle)
      .then(
        (value) => reply(port, { id: message.id, ok: true, value }),
        (error: unknown) => reply(port, { id: message.id, ok: false, error: serializeError(error) }),
      );
  });
}

function reply(port: Port, message: WorkerReply): void {
  try {
    port.postMessage(message);
  } catch (error) {
    // Something in the answer cannot be cloned: say so rather than leave the task hanging.
    port.postMessage({
      id: message.id,
      ok: false,
      error: { message: `the worker could not send its answer: ${serializeError(error).message}` },
    });
  }
}

function serializeError(error: unknown): SerializedError {
  if (RagdeskError.isInstance(error)) {
    return {
      code: error.code,
      status: error.status,
      message: error.message,
      retryable: error.retryable,
      ...(error.details === undefined ? {} : { details: error.details }),
    };
  }
  return { message: error instanceof Error ? error.message : String(error) };
}
