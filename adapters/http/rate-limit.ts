import { numberOption, optionError } from '../kit/option-checks.js';
import type { RateDecision, RateLimiter } from './options.js';

const OWNER = 'tokenBucketLimiter';

export interface TokenBucketOptions {
  /** Sustained requests per second per caller. */
  ratePerSecond: number;
  /** Requests a caller may make at once after being idle (default: one second's worth, at least 1). */
  burst?: number;
  /** Callers remembered at most (least recently seen are forgotten first); default 10 000. */
  maxCallers?: number;
  /** Clock in milliseconds, for tests. */
  now?: () => number;
}

/**
 * An in-process token bucket per caller (API key id, else client address). One process only: behind
 * a load balancer give each instance its share, or pass your own `RateLimiter` backed by a shared store.
 */
export function tokenBucketLimiter(options: TokenBucketOptions): RateLimiter {
  const rate = numberOption(OWNER, 'ratePerSecond', options.ratePerSecond, undefined, { exclusive: true });
  if (rate === undefined) throw optionError(OWNER, 'ratePerSecond', 'is required', rate);
  const burst = numberOption(OWNER, 'burst', options.burst, Math.max(1, Math.ceil(rate)), { min: 1, infinite: true });
  const maxCallers = options.maxCallers ?? 10_000;
  const now = options.now ?? (() => performance.now());
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(callerKey: string): RateDecision {
      const time = now();
      const bucket = buckets.get(callerKey) ?? { tokens: burst, at: time };
      buckets.delete(callerKey);
      bucket.tokens = Math.min(burst, bucket.tokens + ((time - bucket.at) / 1000) * rate);
      bucket.at = time;
      buckets.set(callerKey, bucket);
      if (buckets.size > maxCallers) buckets.delete(buckets.keys().next().value as string);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { allowed: true };
      }
      return { allowed: false, retryAfterSeconds: (1 - bucket.tokens) / rate };
    },
  };
}
