/**
 * Query and rate limits of `ragdesk serve`. A served instance usually has a public agent (`--demo`
 * makes one), and every visitor's query is paid by its owner: without limits, one address could
 * spend the owner's model budget, and 30 s of anonymous queries stored 24,000 conversations.
 */
import type { QueryLimit } from '../../src/index.js';
import { tokenBucketLimiter, type HttpHandlerOptions } from '../http/index.js';
import { UsageError } from './io.js';

export interface ServeLimits {
  /** Agent queries per owner per period (visitors' included); null: none. */
  queryLimit: QueryLimit | null;
  /** Requests per second per API key (else per client address) on every route; 0: none. */
  ratePerSecond: number;
  /** Visitor queries per minute, per client address and per visitor id; 0: none. */
  visitorQueriesPerMinute: number;
  /** New visitor conversations per minute, per client address and per visitor id; 0: none. */
  visitorConversationsPerMinute: number;
}

export const DEFAULT_SERVE_LIMITS: ServeLimits = {
  queryLimit: { maxQueries: 1_000, period: 'day' },
  ratePerSecond: 20,
  visitorQueriesPerMinute: 30,
  visitorConversationsPerMinute: 10,
};

export const SERVE_LIMIT_FLAGS = {
  'query-limit': { type: 'string' },
  'rate-limit': { type: 'string' },
  'visitor-query-rate': { type: 'string' },
  'visitor-conversation-rate': { type: 'string' },
} as const;

export const SERVE_LIMIT_USAGE =
  `  --query-limit 1000/day (n/hour, n/day, n/month or none): agent queries per owner, visitors' included.\n` +
  `  --rate-limit ${DEFAULT_SERVE_LIMITS.ratePerSecond} (requests per second per key or address, 0 for none),\n` +
  `  --visitor-query-rate ${DEFAULT_SERVE_LIMITS.visitorQueriesPerMinute} and --visitor-conversation-rate ${DEFAULT_SERVE_LIMITS.visitorConversationsPerMinute} ` +
  '(per minute, per address and per visitor id, 0 for none): 429 with Retry-After past them.';

function parseQueryLimit(text: string | undefined): QueryLimit | null {
  if (text === undefined) return DEFAULT_SERVE_LIMITS.queryLimit;
  if (text.trim().toLowerCase() === 'none') return null;
  const match = /^(\d{1,9})\/(hour|day|month)$/.exec(text.trim());
  if (!match) throw new UsageError(`--query-limit must be <count>/hour, <count>/day, <count>/month or none, got ${JSON.stringify(text)}`);
  return { maxQueries: Number(match[1]), period: match[2] as QueryLimit['period'] };
}

function rate(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0)
    throw new UsageError(`--${flag} must be a number >= 0, got ${JSON.stringify(text)}`);
  return value;
}

export function parseServeLimits(values: Partial<Record<keyof typeof SERVE_LIMIT_FLAGS, string>>): ServeLimits {
  return {
    queryLimit: parseQueryLimit(values['query-limit']),
    ratePerSecond: rate('rate-limit', values['rate-limit'], DEFAULT_SERVE_LIMITS.ratePerSecond),
    visitorQueriesPerMinute: rate('visitor-query-rate', values['visitor-query-rate'], DEFAULT_SERVE_LIMITS.visitorQueriesPerMinute),
    visitorConversationsPerMinute: rate(
      'visitor-conversation-rate',
      values['visitor-conversation-rate'],
      DEFAULT_SERVE_LIMITS.visitorConversationsPerMinute,
    ),
  };
}

/** The handler options for these limits (a burst of twice the per-second rate, or a minute's worth for visitors, at most 20). */
export function serveLimitHandlerOptions(limits: ServeLimits): Pick<HttpHandlerOptions, 'rateLimiter' | 'visitorLimits'> {
  const perMinute = (count: number) =>
    count === 0 ? false : tokenBucketLimiter({ ratePerSecond: count / 60, burst: Math.max(1, Math.min(20, Math.ceil(count))) });
  return {
    ...(limits.ratePerSecond > 0
      ? {
          rateLimiter: tokenBucketLimiter({ ratePerSecond: limits.ratePerSecond, burst: Math.max(1, Math.ceil(limits.ratePerSecond * 2)) }),
        }
      : {}),
    visitorLimits: {
      queries: perMinute(limits.visitorQueriesPerMinute),
      conversations: perMinute(limits.visitorConversationsPerMinute),
    },
  };
}
