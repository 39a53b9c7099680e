/**
 * Stable error codes. Callers branch on `code`; `status` is what the HTTP adapter answers with.
 */
export type RagdeskErrorCode =
  | 'invalid_request'
  | 'not_found'
  | 'unauthorized'
  | 'forbidden'
  | 'origin_not_allowed'
  | 'method_not_allowed'
  | 'conflict'
  | 'usage_limit'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'embedding_mismatch'
  | 'model_not_available'
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
  // A browser page on a site the agent does not list (interfaceConfig.authorizedDomains).
  origin_not_allowed: 403,
  method_not_allowed: 405,
  conflict: 409,
  usage_limit: 402,
  payload_too_large: 413,
  unsupported_media_type: 415,
  embedding_mismatch: 409,
  model_not_available: 400,
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

/**
 * Marks every RagdeskError. `Symbol.for` gives the same symbol to every copy of this module in a
 * process, so an error made by another copy of ragdesk (an adapter built against another version in
 * the same node_modules) is recognised, where `instanceof` compares classes and would not.
 */
const MARKER: unique symbol = Symbol.for('ragdesk.error');

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
    // Not enumerable: it stays out of spreads, JSON and test equality.
    Object.defineProperty(this, MARKER, { value: true });
  }

  /**
   * True for a RagdeskError from any copy of ragdesk loaded in the process. Use it instead of
   * `instanceof RagdeskError`, which is false for errors thrown by an adapter that carries its own copy
   * of the package: their `conflict` would answer 500 instead of 409. An error of a newer copy may
   * carry a code this one does not list; its `status` is still its own.
   */
  static isInstance(value: unknown): value is RagdeskError {
    if (typeof value !== 'object' || value === null) return false;
    const candidate = value as { [MARKER]?: unknown; code?: unknown; status?: unknown };
    return candidate[MARKER] === true && typeof candidate.code === 'string' && typeof candidate.status === 'number';
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

/**
 * Same as `RagdeskError.isInstance` (recognises errors of every copy of ragdesk in the process).
 * @deprecated since 2026-11-25: use `RagdeskError.isInstance`, the one spelling the package uses.
 */
export function isRagdeskError(value: unknown): value is RagdeskError {
  return RagdeskError.isInstance(value);
}

export function notFound(kind: string, id: string): RagdeskError {
  return new RagdeskError('not_found', `${kind} ${JSON.stringify(id)} does not exist`, {
    details: { kind, id },
  });
}

export function invalidRequest(message: string, issues: FieldIssue[] = []): RagdeskError {
  return new RagdeskError('invalid_request', message, issues.length ? { details: { issues } } : {});
}
