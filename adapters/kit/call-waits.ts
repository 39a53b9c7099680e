/**
 * Waits of HTTP clients to hosted APIs (the OpenAI adapter, the rerank adapter): what a
 * `Retry-After` asks for, and a sleep the caller's signal ends.
 */
import { RagdeskError } from '../../src/errors.js';

/**
 * The wait a response asks for: `retry-after-ms` (OpenAI's, milliseconds), else `retry-after` in
 * seconds or as an HTTP date. Undefined when absent or unreadable.
 */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const millis = headers.get('retry-after-ms');
  if (millis !== null && millis.trim() !== '' && Number.isFinite(Number(millis))) return Math.max(0, Number(millis));
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  if (Number.isFinite(Number(value))) return Math.max(0, Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Waits `ms`, or rejects with `aborted` as soon as `signal` fires. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortedError(signal));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortedError(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function abortedError(signal: AbortSignal, cause?: unknown): RagdeskError {
  return new RagdeskError('aborted', 'The call was aborted by the caller', { cause: cause ?? signal.reason });
}
