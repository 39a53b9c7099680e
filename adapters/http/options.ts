import type { ApiKeyScope } from '../../src/ports/agent-key-usage-records.js';
import { integerOption, optionError } from '../kit/option-checks.js';
import { CorsPolicy, type CorsOptions } from './cors.js';
import type { UiOptions } from './ui/serve-ui.js';
import { resolveVisitorLimits, type ResolvedVisitorLimits, type VisitorLimitOptions } from './visitor-limits.js';

/** A key accepted from configuration (e.g. env `RAGDESK_API_KEY`), checked in memory, never stored. */
export interface ConfiguredApiKey {
  key: string;
  ownerId: string;
  /** Default `['admin']`. */
  scopes?: ApiKeyScope[];
  datastoreIds?: string[] | null;
}

/** Where 500s (real bugs) are reported, with the request id the client was given. */
export interface HttpLogger {
  error(message: string, fields: Record<string, unknown>): void;
}

export interface RateDecision {
  allowed: boolean;
  /** Seconds until a request would be allowed again; sent as `Retry-After`. */
  retryAfterSeconds?: number;
}

/** Decides per caller (API key id, else client address) whether a request may proceed. */
export interface RateLimiter {
  take(callerKey: string): RateDecision | Promise<RateDecision>;
}

export interface HttpHandlerOptions {
  /** Path prefix of every route (default `/api`, as the reference service's clients expect). */
  basePath?: string;
  /** Largest JSON body in bytes (default 10 MiB); larger is 413. */
  maxJsonBytes?: number;
  /** Largest uploaded file in bytes (default 50 MiB); larger is 413, detected while streaming. */
  maxFileBytes?: number;
  /** Keys accepted besides those in `ragdesk.keys`. */
  apiKeys?: ConfiguredApiKey[];
  /** Optional rate limiting; refused requests get 429. See `tokenBucketLimiter`. */
  rateLimiter?: RateLimiter;
  /**
   * Rate limits on visitors of public agents (callers who do not own the agent), per client
   * address and per visitor id, on queries and on new conversations; on by default (see
   * `VisitorLimitOptions`), `false` turns them off. They come on top of `rateLimiter`.
   */
  visitorLimits?: VisitorLimitOptions | false;
  /** Default: one JSON line on stderr per 500. */
  logger?: HttpLogger;
  /**
   * Cross-origin access for browsers. Off by default (no CORS headers; `OPTIONS` is a 405). When on,
   * preflights are answered (204, or 403 for an origin not allowed) and responses carry
   * `Access-Control-Allow-Origin` for allowed origins.
   */
  cors?: CorsOptions;
  /**
   * The web console, chat pages and `widget.js` (off by default): `true` serves them at `/`,
   * `{ basePath: '/console' }` elsewhere. Static, built at `npm run build`; they call only this API.
   */
  ui?: boolean | UiOptions;
  /**
   * The OpenAI-compatible routes (off by default): `POST {basePath}/chat/completions` and
   * `GET {basePath}/models`, `basePath` `/v1` unless given. `true` is `{ basePath: '/v1' }`.
   */
  openaiCompat?: boolean | { basePath?: string };
  /**
   * The origin upload links are made with (`https://api.example.com`). Default: the request's `Host`
   * over http, or https when `X-Forwarded-Proto` says so (behind a TLS proxy).
   */
  publicUrl?: string;
}

export interface ResolvedOptions {
  basePath: string;
  maxJsonBytes: number;
  maxFileBytes: number;
  apiKeys: ConfiguredApiKey[];
  rateLimiter: RateLimiter | undefined;
  visitorLimits: ResolvedVisitorLimits;
  logger: HttpLogger;
  cors: CorsPolicy | undefined;
  /** Where the OpenAI-compatible routes are (absolute), or null when they are off. */
  openaiCompatBasePath: string | null;
  publicUrl: string | undefined;
}

const stderrLogger: HttpLogger = {
  error(message, fields) {
    process.stderr.write(`${JSON.stringify({ level: 'error', message, ...fields })}\n`);
  },
};

const OWNER = 'createHttpHandler';

export function resolveOptions(options: HttpHandlerOptions): ResolvedOptions {
  const basePath = (options.basePath ?? '/api').replace(/\/+$/, '');
  if (basePath !== '' && !basePath.startsWith('/')) throw optionError(OWNER, 'basePath', 'must start with "/"', options.basePath);
  return {
    basePath,
    maxJsonBytes: integerOption(OWNER, 'maxJsonBytes', options.maxJsonBytes, 10 * 1024 * 1024),
    maxFileBytes: integerOption(OWNER, 'maxFileBytes', options.maxFileBytes, 50 * 1024 * 1024),
    apiKeys: options.apiKeys ?? [],
    rateLimiter: options.rateLimiter,
    visitorLimits: resolveVisitorLimits(options.visitorLimits),
    logger: options.logger ?? stderrLogger,
    cors: options.cors === undefined ? undefined : new CorsPolicy(options.cors),
    openaiCompatBasePath: openaiCompatBasePath(options.openaiCompat),
    publicUrl: publicUrlOption(options.publicUrl),
  };
}

function openaiCompatBasePath(option: HttpHandlerOptions['openaiCompat']): string | null {
  if (option === undefined || option === false) return null;
  const given = option === true ? '/v1' : (option.basePath ?? '/v1');
  const basePath = given.replace(/\/+$/, '');
  if (!basePath.startsWith('/')) throw optionError(OWNER, 'openaiCompat.basePath', 'must start with "/" and name a path', given);
  return basePath;
}

function publicUrlOption(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const url = URL.canParse(value) ? new URL(value) : null;
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search !== '') {
    throw optionError(OWNER, 'publicUrl', 'must be an http(s) origin such as https://api.example.com', value);
  }
  return url.origin;
}
