import { RagdeskError } from '../../src/index.js';
import type { HttpLogger } from './options.js';
import type { JsonResult } from './types.js';

/**
 * Every failure becomes `{ "error": { "code", "message", "details" } }`. A RagdeskError carries its
 * own status; anything else is a bug: 500 with the request id, logged with its stack, and no
 * internals in the body.
 */
export function errorResult(error: unknown, requestId: string, logger: HttpLogger, where: string): JsonResult {
  if (RagdeskError.isInstance(error)) {
    if (error.status >= 500) logError(logger, error, requestId, where);
    // Messages quote what the client sent (an id, a field); a key pasted in the wrong place must
    // not come back out of the API.
    const body = redactSecrets(error.toJSON());
    // `details` is always an object, empty when there is nothing to add, so clients can read it unguarded.
    body.error.details = { ...(body.error.details ?? {}), ...(error.status >= 500 ? { requestId } : {}) };
    const headers: Record<string, string> = {};
    const retryAfter = error.details?.retryAfterSeconds;
    if (error.status === 429 && typeof retryAfter === 'number') headers['retry-after'] = String(Math.max(1, Math.ceil(retryAfter)));
    if (error.status === 405 && Array.isArray(error.details?.allowed)) headers.allow = (error.details.allowed as string[]).join(', ');
    return { kind: 'json', status: error.status, body, headers };
  }
  logError(logger, error, requestId, where);
  const internal = new RagdeskError('internal', `Internal error; quote request id ${requestId} when reporting it`, {
    details: { requestId },
  });
  return { kind: 'json', status: 500, body: internal.toJSON() };
}

/** Anything shaped like an API key (`rdk_` and at least 8 more key characters). */
const SECRET = /rdk_[A-Za-z0-9_-]{8,}/g;

/** The value with every key-shaped string replaced, through strings, arrays and plain objects. */
function redactSecrets<T>(value: T): T {
  if (typeof value === 'string') return value.replace(SECRET, 'rdk_[redacted]') as T;
  if (Array.isArray(value)) return value.map(redactSecrets) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, redactSecrets(inner)])) as T;
  }
  return value;
}

export function logError(logger: HttpLogger, error: unknown, requestId: string, where: string): void {
  try {
    logger.error(
      'ragdesk http: request failed',
      redactSecrets({
        requestId,
        route: where,
        code: RagdeskError.isInstance(error) ? error.code : 'internal',
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      }),
    );
  } catch {
    // A failing logger must not turn one error into two.
  }
}
