/**
 * How a failed operation is retried: at most `maxAttempts` attempts in all, the first included,
 * waiting `baseDelayMs` before the first retry and twice as long before each further one. The sync
 * job runner retries datasource jobs with it; the OpenAI adapter retries calls with it, adding its
 * own cap on one wait and on the Retry-After it honours.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included (sync jobs: default 4). */
  maxAttempts: number;
  /** Wait before the first retry, doubling for each further one (sync jobs: default 1000 ms). */
  baseDelayMs: number;
}
