import type { RagdeskContext } from '../context.js';
import { RagdeskError } from '../errors.js';

/**
 * Usage policy for ingestion. Exceeding a limit ends the sync in `usage_limit_reached` before
 * anything of it is written, so nothing partial becomes searchable. `maxStoredTokens` counts per
 * owner: every datastore of the same `ownerId` (API keys belong to owners) shares it; datastores
 * without an owner share one budget, the instance's.
 */
export interface UsageLimits {
  /** Largest uploaded file a sync will read, in bytes. */
  maxFileBytes?: number;
  /** Most pages one `web_site` datasource may hold. */
  maxPagesPerSite?: number;
  /** Most chunk tokens one owner's datastores may hold in all. */
  maxStoredTokens?: number;
}

export function usageLimit(message: string, details: Record<string, unknown>): RagdeskError {
  return new RagdeskError('usage_limit', message, { details });
}

/**
 * Throws `usage_limit` when replacing the chunks of `replacing` with `incomingTokens` tokens would
 * take the owner of the datastore past `maxStoredTokens`.
 */
export async function assertTokenBudget(
  context: RagdeskContext,
  datastoreId: string,
  replacing: ReadonlySet<string>,
  incomingTokens: number,
): Promise<void> {
  const limit = context.usage.maxStoredTokens;
  if (limit === undefined) return;
  const datastore = await context.store.getDatastore(datastoreId);
  if (!datastore) return;
  const ownerId = datastore.ownerId;
  const owned = ownerId === null
    ? (await context.store.listDatastores()).filter((record) => record.ownerId === null)
    : await context.store.listDatastores({ ownerId });
  let kept = 0;
  for (const record of owned) {
    for (const source of await context.store.listDatasources(record.id)) {
      // A site's own counts are the sum of its pages: count the pages, not the site twice.
      if (source.type !== 'web_site' && !replacing.has(source.id)) kept += source.nbTokens;
    }
  }
  if (kept + incomingTokens > limit) {
    throw usageLimit(`Storing ${incomingTokens} more tokens would exceed the owner's limit of ${limit} stored tokens`, {
      limit,
      stored: kept,
      incoming: incomingTokens,
      ownerId,
    });
  }
}
