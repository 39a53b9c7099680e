import type { RagdeskContext } from '../context.js';
import { RagdeskError } from '../errors.js';
import { datasourcesOfOwner, storedTotals } from '../usage/stored-totals.js';

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
  /**
   * Most characters of text one datasource (a file, a page, an upserted text, or a site's pages
   * together) may extract (default 20,000,000; `Infinity` for none). More ends the sync in `error`,
   * reason `too_much_text`, before the text is cleaned or chunked (a site stops crawling at the page
   * that passes it): a 49 MB text file held 1.4 GB while it was cut into 40,000 chunks.
   */
  maxExtractedChars?: number;
  /**
   * Most chunks one datasource may be cut into (default 20,000; `Infinity` for none). Chunking stops
   * at the first one over and the sync ends in `error`, reason `too_many_chunks`, with nothing stored.
   */
  maxChunksPerDatasource?: number;
}

const DEFAULT_MAX_EXTRACTED_CHARS = 20_000_000;
const DEFAULT_MAX_CHUNKS_PER_DATASOURCE = 20_000;

/** The two size limits of one document, with their defaults applied. */
export function documentLimits(usage: UsageLimits): { maxChars: number; maxChunks: number } {
  return {
    maxChars: usage.maxExtractedChars ?? DEFAULT_MAX_EXTRACTED_CHARS,
    maxChunks: usage.maxChunksPerDatasource ?? DEFAULT_MAX_CHUNKS_PER_DATASOURCE,
  };
}

/**
 * `payload_too_large` for a document over a size limit: not a quota that frees up later but a
 * document this instance will not hold, so the sync ends in `error` (not retried).
 */
export function documentTooLarge(message: string, details: Record<string, unknown>): RagdeskError {
  return new RagdeskError('payload_too_large', message, { details });
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
  const datastore = await context.retrieval.getDatastore(datastoreId);
  if (!datastore) return;
  const ownerId = datastore.ownerId;
  const kept = storedTotals(await datasourcesOfOwner(context.retrieval, ownerId), replacing).tokens;
  if (kept + incomingTokens > limit) {
    throw usageLimit(`Storing ${incomingTokens} more tokens would exceed the owner's limit of ${limit} stored tokens`, {
      limit,
      stored: kept,
      incoming: incomingTokens,
      ownerId,
    });
  }
}
