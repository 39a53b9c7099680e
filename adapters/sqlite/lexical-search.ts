import type { RetrievalFilter, ScoredId } from '../../src/ports/records.js';
import type { TextSearchRequest } from '../../src/ports/store.js';
import { extractQueryTerms } from '../../src/text/query-terms.js';
import type { SqliteDatabase } from './database.js';
import { planExpressions, quoteTerm, type LexicalSearchLimits } from './term-plan.js';

/** Cached document frequencies are dropped after this many chunk rows changed. */
const FREQUENCY_CACHE_WRITES = 1_000;
const FREQUENCY_CACHE_SIZE = 8_192;

/** bm25 search over `chunks_fts`, restricted to a datastore and a filter (see term-plan.ts for the cost model). */
export function lexicalSearch(db: SqliteDatabase, limits: LexicalSearchLimits) {
  // Counting stops just above the budget: past it, a term is "common" whatever its exact count.
  const countTerm = db.prepare(
    'SELECT count(*) AS count FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)',
  );
  // The scope index holds (pk, datastore, datasource, custom id): checking a hit costs a lookup in
  // that small b-tree instead of a read of the chunk row (text + vector), 3-5x slower at 100k rows.
  // Rows failing the filter are dropped before bm25 is computed for them.
  const search = db.prepare(
    `SELECT c.pk AS pk, bm25(chunks_fts) AS rank
     FROM chunks_fts JOIN chunks c INDEXED BY chunks_scope ON c.pk = chunks_fts.rowid
     WHERE chunks_fts MATCH @match AND c.datastore_id = @datastore
       AND (@sources IS NULL OR c.datasource_id IN (SELECT value FROM json_each(@sources)))
       AND (@tenants IS NULL OR c.custom_id IN (SELECT value FROM json_each(@tenants)))
     ORDER BY rank LIMIT @limit`,
  );
  const selectIds = db.prepare('SELECT pk, id FROM chunks WHERE pk IN (SELECT value FROM json_each(?))');

  // Frequencies are only used to choose terms, never in scores (FTS5 computes those live), so a
  // slightly stale count costs nothing but a less ideal choice.
  const frequencies = new Map<string, number>();
  let writesSinceReset = 0;

  function documentFrequency(term: string): number {
    const cached = frequencies.get(term);
    if (cached !== undefined) return cached;
    const row = countTerm.get(quoteTerm(term), limits.postingBudget + 1) as { count: number };
    if (frequencies.size >= FREQUENCY_CACHE_SIZE) frequencies.clear();
    frequencies.set(term, row.count);
    return row.count;
  }

  function run(match: string, request: TextSearchRequest, limit: number): { pk: number; rank: number }[] {
    return search.all({
      match,
      datastore: request.datastoreId,
      sources: filterList(request.filter?.datasourceIds),
      tenants: filterList(request.filter?.customIds),
      limit,
    }) as { pk: number; rank: number }[];
  }

  return {
    search(request: TextSearchRequest): ScoredId[] {
      const topK = Math.floor(request.topK);
      if (!(topK > 0)) return [];
      const terms = extractQueryTerms(request.query, { maxTerms: limits.maxQueryTerms }).map((term) => ({
        term,
        frequency: documentFrequency(term),
      }));
      let rows: { pk: number; rank: number }[] = [];
      for (const match of planExpressions(terms, limits)) {
        rows = run(match, request, topK);
        if (rows.length > 0) break;
      }
      if (rows.length === 0) return [];
      const ids = new Map(
        (selectIds.all(JSON.stringify(rows.map((row) => row.pk))) as { pk: number; id: string }[]).map(
          (row) => [row.pk, row.id],
        ),
      );
      // FTS5's bm25 is negative, lower is better; the port wants positive, higher is better.
      return rows.flatMap((row) => {
        const id = ids.get(row.pk);
        return id === undefined ? [] : [{ id, score: -row.rank }];
      });
    },

    /** Tells the frequency cache that chunk rows changed. */
    noteWrites(changedRows: number): void {
      writesSinceReset += changedRows;
      if (writesSinceReset >= FREQUENCY_CACHE_WRITES) this.resetFrequencies();
    },

    /** Drops every cached frequency (after a datastore is deleted, for instance). */
    resetFrequencies(): void {
      frequencies.clear();
      writesSinceReset = 0;
    },
  };
}

export type LexicalSearch = ReturnType<typeof lexicalSearch>;

/** JSON array for `json_each`, or null for "no restriction" (absent or empty list). */
function filterList(values: RetrievalFilter['datasourceIds']): string | null {
  return values === undefined || values.length === 0 ? null : JSON.stringify(values);
}
