import type { JsonResult } from '../types.js';

/** OpenAI's error `type` for a status, so OpenAI clients pick the right error class. */
function typeOf(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 402) return 'insufficient_quota';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

interface RagdeskErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

/**
 * An error body both kinds of client read: OpenAI's `{ error: { message, type, code, param } }`
 * with ragdesk's stable `code` and its `details` beside them. `param` is the first field a 400 names.
 */
export function openaiErrorBody(status: number, body: RagdeskErrorBody) {
  const details = body.error.details ?? {};
  const issues = details.issues;
  const first = Array.isArray(issues) ? (issues[0] as { path?: unknown } | undefined) : undefined;
  return {
    error: {
      message: body.error.message,
      type: typeOf(status),
      code: body.error.code,
      param: typeof first?.path === 'string' && first.path !== '' ? first.path : null,
      details,
    },
  };
}

/** The dispatcher's JSON error result in OpenAI's shape (for every request on the compatible routes). */
export function asOpenAIError(result: JsonResult): JsonResult {
  if (result.status < 400) return result;
  return { ...result, body: openaiErrorBody(result.status, result.body as RagdeskErrorBody) };
}
