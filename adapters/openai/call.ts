import type { RagdeskError } from '../../src/errors.js';
import { Attempt } from './attempt.js';
import type { Connection } from './connection.js';
import { toRagdeskError, withAttempts } from './errors.js';
import { abortedError, nextDelay, sleep } from './retry.js';

/**
 * Runs one request-response call with the adapter's timeout and retry policy. `run` gets the
 * attempt's signal and must pass it (and `maxRetries: 0`) to the client.
 */
export async function callWithRetries<T>(
  connection: Connection,
  callerSignal: AbortSignal | undefined,
  what: string,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  for (let retryIndex = 0; ; retryIndex++) {
    if (callerSignal?.aborted) throw abortedError(callerSignal);
    const attempt = new Attempt(callerSignal, connection.timeoutMs);
    let failure: RagdeskError;
    try {
      return await run(attempt.signal);
    } catch (error) {
      failure = toRagdeskError(error, attempt, callerSignal, what);
    } finally {
      attempt.dispose();
    }
    const wait = nextDelay(connection.retry, retryIndex, failure);
    if (wait === null || failure.code === 'aborted') throw withAttempts(failure, retryIndex + 1);
    await sleep(wait, callerSignal);
  }
}
