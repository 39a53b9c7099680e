import { RagdeskError } from '../errors.js';
import type { AccountStore } from '../ports/store.js';

/** Agent queries allowed per owner per period; exceeding it fails with `usage_limit` before any model call. */
export interface QueryLimit {
  maxQueries: number;
  period: 'hour' | 'day' | 'month';
}

/** Counter key when neither the caller nor the agent names an owner. */
export const DEFAULT_OWNER = 'default';

/** Counts one query against the owner's limit, refusing it when the limit is reached. */
export async function consumeQuery(store: AccountStore, limit: QueryLimit | undefined, ownerId: string, now: Date): Promise<void> {
  if (!limit) return;
  const period = periodBucket(limit.period, now);
  const result = await store.consumeUsage({
    subject: ownerId,
    metric: 'agent_queries',
    period,
    amount: 1,
    limit: limit.maxQueries,
  });
  if (!result.allowed) {
    throw new RagdeskError('usage_limit', `Query limit reached: ${limit.maxQueries} agent queries per ${limit.period}`, {
      details: { ownerId, limit: limit.maxQueries, period: limit.period, bucket: period, used: result.used },
    });
  }
}

/**
 * Agent queries the owner has made in the current period of the limit: the counter `consumeQuery`
 * decides on, read by adding nothing to it (the Store has no separate read).
 */
export async function queriesUsed(
  store: Pick<AccountStore, 'consumeUsage'>,
  limit: QueryLimit,
  ownerId: string,
  now: Date,
): Promise<number> {
  const result = await store.consumeUsage({
    subject: ownerId,
    metric: 'agent_queries',
    period: periodBucket(limit.period, now),
    amount: 0,
  });
  return result.used;
}

export function periodBucket(period: QueryLimit['period'], now: Date): string {
  const iso = now.toISOString();
  if (period === 'hour') return iso.slice(0, 13);
  if (period === 'day') return iso.slice(0, 10);
  return iso.slice(0, 7);
}
