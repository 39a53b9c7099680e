import type { RagdeskError } from '../../src/errors.js';
export { abortedError, retryAfterMs, sleep } from '../kit/call-waits.js';
import type { RetryPolicy } from '../../src/ports/retry-policy.js';

/**
 * How failed calls are retried: 429, 408, 409, 5xx, network errors and timeouts, never a stream
 * that has already yielded text. The adapter retries itself instead of leaving it to the `openai`
 * client because the client's waits ignore the AbortSignal, it follows any Retry-After however
 * long, and its backoff cannot be tuned (tests need milliseconds, batch jobs may want minutes).
 */
export interface RetryOptions {
  /** Backoff before the first retry (default 500 ms); doubles for each further retry. */
  initialDelayMs?: number;
  /** Cap on one backoff delay (default 8000 ms). */
  maxDelayMs?: number;
  /**
   * Longest `Retry-After` honoured (default 60000 ms). A server asking for a longer wait fails the
   * call at once with `rate_limited` and `details.retryAfterMs`, for the caller to schedule.
   */
  maxRetryAfterMs?: number;
}

/** The defaults of `maxRetries` and `retry`. */
export const DEFAULT_RETRY: Required<RetryOptions> & { maxRetries: number } = {
  maxRetries: 2,
  initialDelayMs: 500,
  maxDelayMs: 8000,
  maxRetryAfterMs: 60_000,
};

/** A connection's policy: the shared `RetryPolicy`, with a cap on one wait and on Retry-After. */
export interface CallRetryPolicy extends RetryPolicy {
  maxDelayMs: number;
  maxRetryAfterMs: number;
}

/** The policy of `maxRetries` (retries after the first attempt) and `retry`, defaults filled in. */
export function callRetryPolicy(maxRetries: number | undefined, options: RetryOptions | undefined): CallRetryPolicy {
  const { initialDelayMs, maxDelayMs, maxRetryAfterMs } = { ...DEFAULT_RETRY, ...options };
  return { maxAttempts: (maxRetries ?? DEFAULT_RETRY.maxRetries) + 1, baseDelayMs: initialDelayMs, maxDelayMs, maxRetryAfterMs };
}

/** Exponential backoff with up to 25% jitter taken off, so clients that failed together spread out. */
function backoffDelay(policy: CallRetryPolicy, retryIndex: number, random: () => number = Math.random): number {
  const base = Math.min(policy.baseDelayMs * 2 ** retryIndex, policy.maxDelayMs);
  return base * (1 - random() * 0.25);
}

/** How long to wait before retry number `retryIndex` (0-based) after `failure`, or null to give up. */
export function nextDelay(policy: CallRetryPolicy, retryIndex: number, failure: RagdeskError): number | null {
  if (!failure.retryable || retryIndex + 1 >= policy.maxAttempts) return null;
  const asked = failure.details?.['retryAfterMs'];
  if (typeof asked === 'number') return asked > policy.maxRetryAfterMs ? null : asked;
  return backoffDelay(policy, retryIndex);
}
