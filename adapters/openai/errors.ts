import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { RagdeskError } from '../../src/errors.js';
import type { Attempt } from './attempt.js';
import { abortedError, retryAfterMs } from './retry.js';

/**
 * Maps whatever an attempt threw to a RagdeskError with a stable code:
 * - the caller's signal fired → `aborted` (never retried);
 * - the attempt's timer fired, a connect timeout, or 408 → `upstream_timeout` (504, retryable);
 * - 429 → `rate_limited` (429, retryable unless the quota is spent), `details.retryAfterMs` when given;
 * - 409, 5xx, connection failures → `upstream_failed` (502, retryable);
 * - other statuses, in-stream errors, unreadable responses → `upstream_failed` (not retryable).
 * `details` carries what the upstream said (`upstreamStatus`, `upstreamCode`, `upstreamType`,
 * `requestId`), never request content or keys.
 */
export function toRagdeskError(error: unknown, attempt: Attempt, callerSignal: AbortSignal | undefined, what: string): RagdeskError {
  if (RagdeskError.isInstance(error)) return error;
  if (attempt.callerAborted && callerSignal) return abortedError(callerSignal, error);
  if (attempt.timedOut || error instanceof APIConnectionTimeoutError) {
    return new RagdeskError('upstream_timeout', `${what}: the server did not answer in time`, { cause: error, retryable: true });
  }
  if (error instanceof APIUserAbortError) {
    return new RagdeskError('upstream_failed', `${what}: the request was cancelled`, { cause: error });
  }
  if (error instanceof APIConnectionError) {
    return new RagdeskError('upstream_failed', `${what}: could not reach the server (${error.message})`, {
      cause: error,
      retryable: true,
      details: { reason: 'connection' },
    });
  }
  // eslint-disable-next-line @typescript-eslint/no-unsafe-argument -- instanceof gives the class with its generic parameters as any; fromApiError reads only status, headers and body
  if (error instanceof APIError) return fromApiError(error, what);
  if (error instanceof SyntaxError) {
    return new RagdeskError('upstream_failed', `${what}: the server sent a response that is not valid JSON`, {
      cause: error,
      details: { reason: 'malformed_response' },
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new RagdeskError('upstream_failed', `${what}: ${message}`, { cause: error });
}

function fromApiError(error: APIError, what: string): RagdeskError {
  const status = error.status;
  const details: Record<string, unknown> = {
    ...(status === undefined ? { reason: 'stream_error' } : { upstreamStatus: status }),
    ...(error.code ? { upstreamCode: error.code } : {}),
    ...(error.type ? { upstreamType: error.type } : {}),
    ...(error.requestID ? { requestId: error.requestID } : {}),
  };
  const upstreamMessage = error.message;
  const wait = retryAfterMs(error.headers);
  if (wait !== undefined) details['retryAfterMs'] = wait;
  const hint = error.headers?.get('x-should-retry');
  const serverSays = hint === 'true' ? true : hint === 'false' ? false : undefined;

  if (status === 429) {
    // A spent quota stays spent: retrying only burns time.
    const quota = error.code === 'insufficient_quota';
    return new RagdeskError('rate_limited', `${what}: rate limited by the server (${upstreamMessage})`, {
      cause: error,
      details,
      retryable: serverSays ?? !quota,
    });
  }
  if (status === 408) {
    return new RagdeskError('upstream_timeout', `${what}: ${upstreamMessage}`, { cause: error, details, retryable: serverSays ?? true });
  }
  const transient = status === undefined ? error.type === 'server_error' : status === 409 || status >= 500;
  return new RagdeskError('upstream_failed', `${what}: ${upstreamMessage}`, { cause: error, details, retryable: serverSays ?? transient });
}

/** Adds how many attempts were made, for the caller's logs. */
export function withAttempts(error: RagdeskError, attempts: number): RagdeskError {
  if (attempts <= 1 || error.code === 'aborted') return error;
  return new RagdeskError(error.code, `${error.message} (after ${attempts} attempts)`, {
    status: error.status,
    cause: error.cause,
    retryable: error.retryable,
    details: { ...error.details, attempts },
  });
}
