import type { RagdeskContext } from '../context.js';
import { documentLimits } from '../datasources/usage-limits.js';
import { periodBucket, queriesUsed, type QueryLimit } from '../agents/usage-policy.js';
import { idSchema, parseInput } from '../validation.js';
import { datasourcesOfOwner, storedTotals } from './stored-totals.js';

/** One owner-wide figure: what is used and what the configured limit allows (null: no limit). */
export interface UsageFigure {
  used: number | null;
  limit: number | null;
}

/**
 * What an owner uses against each limit, read from the same counters and sums the limits are
 * enforced on (`usage_limit`, HTTP 402).
 */
export interface OwnerUsage {
  ownerId: string;
  /**
   * Agent queries in the current period of `agents.queryLimit` (`period`, `bucket` name it).
   * Queries are counted only while a limit is set: without one, `used` is null.
   */
  agentQueries: UsageFigure & { period: QueryLimit['period'] | null; bucket: string | null };
  /** Chunk tokens stored in all of the owner's datastores, against `usage.maxStoredTokens`. */
  storedTokens: UsageFigure;
  /** Chunks stored (no owner-wide limit: each document is capped by `perDocument.maxChunks`). */
  chunks: UsageFigure;
  /** Datasources, sites and pages included (no limit). */
  datasources: UsageFigure;
  /** Bytes of uploaded files kept for re-syncs (no owner-wide limit; each file: `perDocument.maxFileBytes`). */
  fileBytes: UsageFigure;
  /** Limits of one document, file or site (null: none). */
  perDocument: { maxFileBytes: number | null; maxPagesPerSite: number | null; maxChars: number | null; maxChunks: number | null };
}

/** `ragdesk.usage`: the figures behind an owner's limits. */
export class UsageService {
  /** @internal Created by `createRagdesk`. */
  constructor(
    private readonly context: RagdeskContext,
    private readonly queryLimit: QueryLimit | undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The usage of one owner (`ownerId` as API keys and datastores name it). */
  async get(ownerId: string): Promise<OwnerUsage> {
    parseInput(idSchema, ownerId, 'owner id');
    this.context.assertOpen();
    const { retrieval, accounts, usage } = this.context;
    const limit = this.queryLimit;
    const now = this.now();
    const [totals, queries] = await Promise.all([
      datasourcesOfOwner(retrieval, ownerId).then((records) => storedTotals(records)),
      limit ? queriesUsed(accounts, limit, ownerId, now) : Promise.resolve(null),
    ]);
    const document = documentLimits(usage);
    return {
      ownerId,
      agentQueries: {
        used: queries,
        limit: limit?.maxQueries ?? null,
        period: limit?.period ?? null,
        bucket: limit ? periodBucket(limit.period, now) : null,
      },
      storedTokens: { used: totals.tokens, limit: usage.maxStoredTokens ?? null },
      chunks: { used: totals.chunks, limit: null },
      datasources: { used: totals.datasources, limit: null },
      fileBytes: { used: totals.fileBytes, limit: null },
      perDocument: {
        maxFileBytes: usage.maxFileBytes ?? null,
        maxPagesPerSite: usage.maxPagesPerSite ?? null,
        maxChars: finiteOrNull(document.maxChars),
        maxChunks: finiteOrNull(document.maxChunks),
      },
    };
  }
}

function finiteOrNull(value: number): number | null {
  return Number.isFinite(value) ? value : null;
}
