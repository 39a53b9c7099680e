import type pg from 'pg';
import type { ScoredId } from '../../src/ports/records.js';
import type { TextSearchRequest } from '../../src/ports/store.js';
import { extractQueryTerms, segmentTerms } from '../../src/text/query-terms.js';
import { selectRows } from './connection.js';
import { planSearches, type LexicalSearchLimits, type PlannedTerm, type SearchPlan } from './term-plan.js';

/** Cached term statistics are dropped after this many local chunk-row changes, or after this age. */
const CACHE_WRITES = 1_000;
const CACHE_AGE_MS = 60_000;
const CACHE_SIZE = 8_192;

interface TermStats {
  /** `plainto_tsquery('english', term)` as text; '' when the term has no lexeme (a stopword). */
  query: string;
  frequency: number;
}

/**
 * Full-text search over `chunks.tsv` (GIN), ranked bm25-style: each chosen term contributes
 * `idf(term) × ts_rank(tsv, term)`. `ts_rank` gives the saturating term-frequency part (and a
 * length normalisation), the idf weight from the datastore's document frequencies gives rare terms
 * the weight bm25 gives them, which plain `ts_rank` over an OR query lacks.
 *
 * Document frequencies also choose which terms to search (see term-plan.ts). They are cached per
 * datastore; other instances' writes are not seen until the entry ages out, which only makes a
 * choice or a weight slightly stale, never a result wrong (matching and ranking run live).
 */
export function lexicalSearch(pool: pg.Pool, s: string, limits: LexicalSearchLimits) {
  const stats = new Map<string, TermStats & { at: number }>();
  const sizes = new Map<string, { count: number; at: number }>();
  let writesSinceReset = 0;

  async function termStats(datastoreId: string, terms: readonly string[]): Promise<{ terms: PlannedTerm[]; total: number }> {
    const now = Date.now();
    const fresh = (at: number) => now - at < CACHE_AGE_MS;
    const missing = terms.filter((term) => {
      const cached = stats.get(`${datastoreId}\u0000${term}`);
      return cached === undefined || !fresh(cached.at);
    });
    const size = sizes.get(datastoreId);
    if (missing.length > 0 || size === undefined || !fresh(size.at)) {
      // Counting stops just above the budget: past it, a term is "common" whatever its exact count.
      const rows = await selectRows<{ term: string; query: string; frequency: string; total: string | null }>(
        pool,
        `SELECT t.term, q::text AS query,
           CASE WHEN numnode(q) = 0 THEN 0 ELSE (
             SELECT count(*) FROM (SELECT 1 FROM ${s}.chunks c WHERE c.tsv @@ q AND c.datastore_id = $1 LIMIT $3) hits
           ) END AS frequency,
           (SELECT chunk_count FROM ${s}.datastores WHERE id = $1) AS total
         FROM unnest($2::text[]) AS t(term), LATERAL plainto_tsquery('english', t.term) AS q`,
        [datastoreId, missing.length > 0 ? missing : [''], limits.postingBudget + 1],
      );
      if (stats.size + rows.length > CACHE_SIZE) stats.clear();
      for (const row of rows) {
        const frequency = Number(row.frequency);
        // An absent term is not cached: a later write may add it, and a cached 0 would leave it out
        // of every plan until the entry aged out.
        if (row.term !== '' && (frequency > 0 || row.query === '')) {
          stats.set(`${datastoreId}\u0000${row.term}`, { query: row.query, frequency, at: now });
        }
      }
      sizes.set(datastoreId, { count: Number(rows[0]?.total ?? 0), at: now });
    }
    return {
      terms: terms.flatMap((term) => {
        const cached = stats.get(`${datastoreId}\u0000${term}`);
        return cached === undefined || cached.query === '' ? [] : [{ term, query: cached.query, frequency: cached.frequency }];
      }),
      total: sizes.get(datastoreId)?.count ?? 0,
    };
  }

  async function run(request: TextSearchRequest, plan: SearchPlan, total: number, topK: number): Promise<ScoredId[]> {
    const values: unknown[] = [request.datastoreId, topK];
    const param = (value: unknown): string => {
      values.push(value);
      return `$${values.length}`;
    };
    const queries = plan.terms.map((term) => param(term.query));
    const match = queries.map((query) => `${query}::tsquery`).join(plan.mode === 'and' ? ' && ' : ' || ');
    // bm25's idf, kept positive (the "+ 1" of Lucene's variant) so every matching row scores above 0.
    const score = plan.terms
      .map((term, i) => {
        const idf = Math.log(1 + (Math.max(total, term.frequency) - term.frequency + 0.5) / (term.frequency + 0.5));
        return `${idf.toPrecision(8)} * ts_rank(tsv, ${queries[i]}::tsquery, 1)`;
      })
      .join(' + ');
    const filters: string[] = [];
    const sources = request.filter?.datasourceIds ?? [];
    const tenants = request.filter?.customIds ?? [];
    if (sources.length > 0) filters.push(`datasource_id = ANY(${param([...sources])}::text[])`);
    if (tenants.length > 0) filters.push(`custom_id = ANY(${param([...tenants])}::text[])`);
    const rows = await selectRows<{ id: string; score: number }>(
      pool,
      `SELECT id, (${score})::double precision AS score FROM ${s}.chunks
       WHERE datastore_id = $1 AND tsv @@ (${match})${filters.map((filter) => ` AND ${filter}`).join('')}
       ORDER BY score DESC, pk LIMIT $2`,
      values,
    );
    return rows.map((row) => ({ id: row.id, score: row.score }));
  }

  return {
    async search(request: TextSearchRequest): Promise<ScoredId[]> {
      const topK = Math.floor(request.topK);
      if (!(topK > 0)) return [];
      // Runs of unspaced scripts as characters and pairs, as `tsv` holds them (schema.ts, migration 5).
      const words = segmentTerms(extractQueryTerms(request.query, { maxTerms: limits.maxQueryTerms }));
      if (words.length === 0) return [];
      const { terms, total } = await termStats(request.datastoreId, words);
      for (const plan of planSearches(terms, limits)) {
        const rows = await run(request, plan, total, topK);
        if (rows.length > 0) return rows;
      }
      return [];
    },

    /** Tells the statistics cache that chunk rows changed in this process. */
    noteWrites(changedRows: number): void {
      writesSinceReset += changedRows;
      if (writesSinceReset >= CACHE_WRITES) this.reset();
    },

    /** Drops every cached statistic (after a datastore is deleted, for instance). */
    reset(): void {
      stats.clear();
      sizes.clear();
      writesSinceReset = 0;
    },
  };
}
