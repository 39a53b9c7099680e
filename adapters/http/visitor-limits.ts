import { RagdeskError } from '../../src/index.js';
import type { RateLimiter } from './options.js';
import { tokenBucketLimiter } from './rate-limit.js';

/**
 * Rate limits for visitors of public agents: anyone querying an agent they do not own (no key, or
 * another owner's key). Their queries count against the agent owner's `queryLimit`, so without these
 * one address could spend an owner's quota (and model budget) in seconds. Each limiter is asked
 * with a caller key per dimension: `address:<client address>` and, when the query names one,
 * `visitor:<visitorId>`; one refusal refuses the query with 429 and `Retry-After`.
 */
export interface VisitorLimitOptions {
  /**
   * Queries to agents the caller does not own. Default: `tokenBucketLimiter` of 0.5 per second with
   * a burst of 20, per address and per visitor id. `false`: no limit.
   */
  queries?: RateLimiter | false;
  /**
   * New conversations started by visitors (a query that continues no conversation of its visitor).
   * Default: 10 per minute with a burst of 10, per address and per visitor id. `false`: no limit.
   */
  conversations?: RateLimiter | false;
}

export interface ResolvedVisitorLimits {
  queries: RateLimiter | null;
  conversations: RateLimiter | null;
}

const DEFAULT_VISITOR_QUERIES = { ratePerSecond: 0.5, burst: 20 } as const;
const DEFAULT_VISITOR_CONVERSATIONS = { ratePerSecond: 10 / 60, burst: 10 } as const;

export function resolveVisitorLimits(options: VisitorLimitOptions | false | undefined): ResolvedVisitorLimits {
  if (options === false) return { queries: null, conversations: null };
  const pick = (given: RateLimiter | false | undefined, fallback: () => RateLimiter): RateLimiter | null =>
    given === false ? null : (given ?? fallback());
  return {
    queries: pick(options?.queries, () => tokenBucketLimiter(DEFAULT_VISITOR_QUERIES)),
    conversations: pick(options?.conversations, () => tokenBucketLimiter(DEFAULT_VISITOR_CONVERSATIONS)),
  };
}

/** Who a visitor is for the limiters: the client address, and the visitor id when the query names one. */
export interface VisitorIdentity {
  address: string | undefined;
  visitorId: unknown;
}

/** Takes a token per dimension; throws `rate_limited` (429, `Retry-After`) naming what was limited. */
export async function takeVisitorTurn(limiter: RateLimiter | null, visitor: VisitorIdentity, what: string): Promise<void> {
  if (!limiter) return;
  const keys = [`address:${visitor.address ?? 'unknown'}`];
  if (typeof visitor.visitorId === 'string' && visitor.visitorId !== '') keys.push(`visitor:${visitor.visitorId.slice(0, 200)}`);
  let wait: number | undefined;
  let refused = false;
  for (const key of keys) {
    const decision = await limiter.take(key);
    if (decision.allowed) continue;
    refused = true;
    wait = Math.max(wait ?? 0, decision.retryAfterSeconds ?? 0);
  }
  if (refused) {
    throw new RagdeskError('rate_limited', `Too many ${what} from this visitor; slow down`, {
      details: { limit: what, ...(wait === undefined ? {} : { retryAfterSeconds: wait }) },
      retryable: true,
    });
  }
}
