import { parentPort } from 'node:worker_threads';
import { RagdeskError } from '../errors.js';

/** An error crossing the thread boundary: a `RagdeskError`'s fields, or a plain error's message. */
export interface SerializedError {
  code?: string;
  status?: number;
  message: string;
  details?: Record<string, unknown>;
  retryable?: boolean;
}

export type WorkerReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: SerializedError };

/**
 * The thread side of `workerPool`: answers each task message with `handle`'s result or error.
 * The pool sends one task at a time per thread.
 */
export function serveWorkerTasks<Message extends { id: number }>(handle: (message: Message) => Promise<unknown>): void {
  const port = parentPort;
  if (!port) throw new Error('This module runs as a worker thread, started by a worker pool');
  port.on('message', (message: Message) => {
    // Through a promise, so a handler that throws before returning one is answered too.
    void Promise.resolve(message).then(handle).then(
      (value) => reply(port, { id: message.id, ok: true, value }),
      (error: unknown) => reply(port, { id: message.id, ok: false, error: serializeError(error) }),
    );
  });
}

function reply(port: NonNullable<typeof parentPort>, message: WorkerReply): void {
  try {
    port.postMessage(message);
  } catch (error) {
    // Something in the answer cannot be cloned: say so rather than leave the task hanging.
    port.postMessage({ id: message.id, ok: false, error: { message: `the worker could not send its answer: ${serializeError(error).message}` } });
  }
}

function serializeError(error: unknown): SerializedError {
  if (error instanceof RagdeskError) {
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
