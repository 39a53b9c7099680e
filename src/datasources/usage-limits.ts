import type { RagdeskContext } from '../context.js';
import { RagdeskError } from '../errors.js';

/**
 * Usage policy for ingestion. Exceeding a limit ends the sync in `usage_limit_reached` before
 * anything of it is written, so nothing partial becomes searchable. Limits count per datastore;
 * per-owner accounting arrives with API keys and owners (HTTP adapter).
 */
export interface UsageLimits {
  /** Largest uploaded file a sync will read, in bytes. */
  maxFileBytes?: number;
  /** Most pages one `web_site` datasource may hold. */
  maxPagesPerSite?: number;
  /** Most chunk tokens a datastore may hold in all. */
  maxStoredTokens?: number;
}

export function usageLimit(message: string, details: Record<string, unknown>): RagdeskError {
  return new RagdeskError('usage_limit', message, { details });
}

/**
 * Throws `usage_limit` when replacing the chunks of `replacing` with `incomingTokens` tokens would
 * take the datastore past `maxStoredTokens`.
 */
export async function assertTokenBudget(
  context: RagdeskContext,
  datastoreId: string,
  replacing: ReadonlySet<string>,
  incomingTokens: number,
): Promise<void> {
  const limit = context.usage.maxStoredTokens;
  if (limit === undefined) return;
  const sources = await context.store.listDatasources(datastoreId);
  // A site's own counts are the sum of its pages: count the pages, not the site twice.
  const kept = sources
    .filter((source) => source.type !== 'web_site' && !replacing.has(source.id))
    .reduce((sum, source) => sum + source.nbTokens, 0);
  if (kept + incomingTokens > limit) {
    throw usageLimit(`Storing ${incomingTokens} more tokens would exceed the datastore's limit of ${limit}`, {
      limit,
      stored: kept,
      incoming: incomingTokens,
    });
  }
}
