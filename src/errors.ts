/**
 * Stable error codes. Callers branch on `code`; `status` is what the HTTP adapter answers with.
 */
export type RagdeskErrorCode =
  | 'invalid_request'
  | 'not_found'
  | 'unauthorized'
  | 'forbidden'
  | 'method_not_allowed'
  | 'conflict'
  | 'usage_limit'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'embedding_mismatch'
  | 'upstream_failed'
  | 'upstream_timeout'
  | 'rate_limited'
  | 'aborted'
  | 'invalid_adapter'
  | 'closed'
  | 'internal';

const DEFAULT_STATUS: Record<RagdeskErrorCode, number> = {
  invalid_request: 400,
  not_found: 404,
  unauthorized: 401,
  forbidden: 403,
  method_not_allowed: 405,
  conflict: 409,
  usage_limit: 402,
  payload_too_large: 413,
  unsupported_media_type: 415,
  embedding_mismatch: 409,
  upstream_failed: 502,
  upstream_timeout: 504,
  rate_limited: 429,
  // 499: nginx's "client closed request"; only seen in logs, since the client is gone.
  aborted: 499,
  invalid_adapter: 500,
  closed: 503,
  internal: 500,
};

/** One problem with one input field, as listed in `details.issues`. */
export interface FieldIssue {
  /** Dotted path of the offending field, e.g. `documents.0.metadata.author`. */
  path: string;
  message: string;
}

export interface RagdeskErrorOptions {
  status?: number;
  details?: Record<string, unknown>;
  cause?: unknown;
  /** True when the same call may succeed later (timeouts, 429, 5xx upstream). */
  retryable?: boolean;
}

export class RagdeskError extends Error {
  readonly code: RagdeskErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  readonly retryable: boolean;

  constructor(code: RagdeskErrorCode, message: string, options: RagdeskErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RagdeskError';
    this.code = code;
    this.status = options.status ?? DEFAULT_STATUS[code];
    this.details = options.details;
    this.retryable = options.retryable ?? false;
  }

  /** The JSON body shape of errors: `{ error: { code, message, details? } }`. */
  toJSON(): { error: { code: RagdeskErrorCode; message: string; details?: Record<string, unknown> } } {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details === undefined ? {} : { details: this.details }),
      },
    };
  }
}

export function isRagdeskError(value: unknown): value is RagdeskError {
  return value instanceof RagdeskError;
}

export function notFound(kind: string, id: string): RagdeskError {
  return new RagdeskError('not_found', `${kind} ${JSON.stringify(id)} does not exist`, {
    details: { kind, id },
  });
}

export function invalidRequest(message: string, issues: FieldIssue[] = []): RagdeskError {
  return new RagdeskError('invalid_request', message, issues.length ? { details: { issues } } : {});
}
