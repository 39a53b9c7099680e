import { RagdeskError } from '../../src/index.js';
import type { HttpRequest, HttpResult } from './types.js';
import { optionError } from '../kit/option-checks.js';

/**
 * Cross-origin access for browsers (off unless configured). The API authenticates with a Bearer
 * header, never with cookies, so `credentials` stays off unless a deployment puts cookie auth in
 * front; a wildcard origin is then refused at configuration time, as the Fetch standard requires.
 */
export interface CorsOptions {
  /**
   * Origins allowed to call the API from a browser: exact serialized origins
   * (`https://app.example.com`, `http://localhost:5173`), `'*'` for any, or a predicate.
   */
  origins: '*' | readonly string[] | ((origin: string) => boolean);
  /** Request headers a browser may send (default: authorization, content-type, x-request-id). */
  allowedHeaders?: readonly string[];
  /** Response headers scripts may read (default: x-request-id, retry-after, x-total-count). */
  exposedHeaders?: readonly string[];
  /** Send `Access-Control-Allow-Credentials: true` (default false; not allowed with `'*'`). */
  credentials?: boolean;
  /** How long browsers may cache a preflight answer, in seconds (default 600). */
  maxAgeSeconds?: number;
}

export const DEFAULT_ALLOWED = ['authorization', 'content-type', 'x-request-id'];
export const DEFAULT_EXPOSED = ['x-request-id', 'retry-after', 'x-total-count'];
const ORIGIN = /^https?:\/\/[a-z0-9.-]+(?::\d{1,5})?$|^https?:\/\/\[[0-9a-f:.]+\](?::\d{1,5})?$/;
const HEADER_NAME = /^[!#$%&'*+.^`|~\w-]+$/;

/** A checked CORS policy: decides per request which headers to add. */
export class CorsPolicy {
  private readonly allows: (origin: string) => boolean;
  private readonly wildcard: boolean;
  private readonly allowedHeaders: string;
  private readonly exposedHeaders: string;
  private readonly credentials: boolean;
  private readonly maxAge: string;

  constructor(options: CorsOptions) {
    const { origins } = options;
    this.wildcard = origins === '*';
    this.credentials = options.credentials ?? false;
    if (this.wildcard && this.credentials)
      throw optionError('cors', 'credentials', 'cannot be combined with origins "*" (browsers refuse it)', options.credentials);
    if (typeof origins === 'function') {
      this.allows = (origin) => ORIGIN.test(origin) && origins(origin) === true;
    } else if (origins === '*') {
      this.allows = () => true;
    } else if (Array.isArray(origins)) {
      const set = new Set(
        (origins as readonly string[]).map((origin) => {
          const normalised = String(origin).toLowerCase().replace(/\/$/, '');
          if (!ORIGIN.test(normalised))
            throw optionError('cors', 'origins', 'must list origins (scheme://host[:port], no path)', JSON.stringify(origin));
          return normalised;
        }),
      );
      this.allows = (origin) => set.has(origin);
    } else {
      throw optionError('cors', 'origins', 'must be "*", a list of origins, or a function', JSON.stringify(origins));
    }
    this.allowedHeaders = headerList(options.allowedHeaders ?? DEFAULT_ALLOWED, 'allowedHeaders');
    this.exposedHeaders = headerList(options.exposedHeaders ?? DEFAULT_EXPOSED, 'exposedHeaders');
    const maxAge = options.maxAgeSeconds ?? 600;
    if (!Number.isInteger(maxAge) || maxAge < 0) throw optionError('cors', 'maxAgeSeconds', 'must be a non-negative integer', maxAge);
    this.maxAge = String(maxAge);
  }

  /** Whether this request's `Origin` is one this policy lets call the API. */
  allowsRequest(request: HttpRequest): boolean {
    return this.allowedOrigin(request) !== null;
  }

  /**
   * The answer to a preflight for a path whose routes allow `methods`: 204 with the allowed methods
   * and headers, or 403 when the origin is not allowed (no CORS headers, so the browser blocks).
   */
  preflight(request: HttpRequest, methods: readonly string[]): HttpResult {
    const origin = this.allowedOrigin(request);
    if (origin === null) {
      throw new RagdeskError('forbidden', 'This origin may not call the API from a browser', { details: { cors: 'origin not allowed' } });
    }
    return preflightAnswer(this.originHeaders(origin), methods, this.allowedHeaders, this.maxAge);
  }

  /** Headers to add to an actual (non-preflight) response, errors and streams included. */
  responseHeaders(request: HttpRequest): Record<string, string> {
    const origin = this.allowedOrigin(request);
    const vary: Record<string, string> = this.wildcard ? {} : { vary: 'Origin' };
    if (origin === null) return vary;
    return {
      ...vary,
      ...this.originHeaders(origin),
      ...(this.exposedHeaders ? { 'access-control-expose-headers': this.exposedHeaders } : {}),
    };
  }

  /**
   * The value for `Access-Control-Allow-Origin`, or null. Only a value that passed the origin
   * pattern is ever echoed, so a header cannot smuggle anything into the response.
   */
  private allowedOrigin(request: HttpRequest): string | null {
    if (request.header('origin') === undefined) return null;
    if (this.wildcard && !this.credentials) return '*';
    const origin = wellFormedOrigin(request);
    return origin !== null && this.allows(origin) ? origin : null;
  }

  private originHeaders(origin: string): Record<string, string> {
    return { 'access-control-allow-origin': origin, ...(this.credentials ? { 'access-control-allow-credentials': 'true' } : {}) };
  }
}

/** A preflight is an OPTIONS request naming the method it asks for. */
export function isPreflight(request: HttpRequest): boolean {
  return request.method === 'OPTIONS' && request.header('access-control-request-method') !== undefined;
}

/** The `Origin` header lower-cased when it is a well-formed serialized origin, else null (`null`, garbage). */
export function wellFormedOrigin(request: HttpRequest): string | null {
  const origin = request.header('origin')?.toLowerCase();
  return origin !== undefined && ORIGIN.test(origin) ? origin : null;
}

/** A preflight's 204: the origin's headers, then what the path's routes accept. */
export function preflightAnswer(
  originHeaders: Record<string, string>,
  methods: readonly string[],
  allowedHeaders: string,
  maxAge: string,
): HttpResult {
  return {
    kind: 'empty',
    status: 204,
    headers: {
      ...originHeaders,
      'access-control-allow-methods': methods.join(', '),
      'access-control-allow-headers': allowedHeaders,
      'access-control-max-age': maxAge,
      vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    },
  };
}

function headerList(names: readonly string[], option: string): string {
  for (const name of names) {
    if (!HEADER_NAME.test(name)) throw optionError('cors', option, 'must list header names', JSON.stringify(name));
  }
  return names.map((name) => name.toLowerCase()).join(', ');
}
