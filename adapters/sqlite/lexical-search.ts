import type { RetrievalFilter, ScoredId } from '../../src/ports/records.js';
import type { TextSearchRequest } from '../../src/ports/store.js';
import { extractQueryTerms } from '../../src/text/query-terms.js';
import type { SqliteDatabase } from './database.js';

/**
 * Cost limits of one search. FTS5 computes bm25 for every row that matches any OR'ed term
 * (~1-3 µs a row at 100k chunks, more with more terms), so an 8-term query with two common words
 * scores tens of thousands of rows. Keeping only the rarest terms bounds that work; the common
 * words dropped carry little bm25 weight (low idf) but do break ties among the rows kept.
 */
export interface LexicalSearchLimits {
  /** At most this many terms are searched (the rarest ones). */
  maxTerms: number;
  /** The selected terms' document frequencies add up to at most this (the rarest term always counts). */
  postingBudget: number;
  /** Query terms looked at (the first ones) before choosing the rarest. */
  maxQueryTerms: number;
}

export const DEFAULT_LEXICAL_LIMITS: LexicalSearchLimits = {
  maxTerms: 8,
  postingBudget: 4_000,
  maxQueryTerms: 32,
};

/** Cached document frequencies are dropped after this many chunk rows changed. */
const FREQUENCY_CACHE_WRITES = 1_000;
const FREQUENCY_CACHE_SIZE = 8_192;

/** A term as an FTS5 string: double quotes make every keyword (AND, NEAR, ...) and symbol literal. */
export function quoteTerm(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/** bm25 search over `chunks_fts`, restricted to a datastore and a filter. */
export function lexicalSearch(db: SqliteDatabase, limits: LexicalSearchLimits = DEFAULT_LEXICAL_LIMITS) {
  // Counting stops at the budget: a term that frequent is never worth more than "too common".
  const countTerm = db.prepare(
    'SELECT count(*) AS count FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)',
  );
  // The scope index holds (pk, datastore, datasource, custom id): checking a row costs a lookup in
  // a small b-tree instead of a read of the chunk row (text + vector), 3-5x slower at 100k rows.
  // bm25 is only computed for rows that pass the filter.
  const search = db.prepare(
    `SELECT c.pk AS pk, bm25(chunks_fts) AS rank
     FROM chunks_fts JOIN chunks c INDEXED BY chunks_scope ON c.pk = chunks_fts.rowid
     WHERE chunks_fts MATCH @match AND c.datastore_id = @datastore
       AND (@sources IS NULL OR c.datasource_id IN (SELECT value FROM json_each(@sources)))
       AND (@tenants IS NULL OR c.custom_id IN (SELECT value FROM json_each(@tenants)))
     ORDER BY rank LIMIT @limit`,
  );
  const selectIds = db.prepare('SELECT pk, id FROM chunks WHERE pk IN (SELECT value FROM json_each(?))');

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

  /** The rarest terms within the budget, in rarity order; none when no term occurs at all. */
  function chooseTerms(query: string): string[] {
    const terms = extractQueryTerms(query, { maxTerms: limits.maxQueryTerms })
      .map((term, order) => ({ term, order, frequency: documentFrequency(term) }))
      .filter((entry) => entry.frequency > 0)
      .sort((a, b) => a.frequency - b.frequency || a.order - b.order);
    const chosen: string[] = [];
    let postings = 0;
    for (const entry of terms) {
      if (chosen.length >= limits.maxTerms) break;
      if (chosen.length > 0 && postings + entry.frequency > limits.postingBudget) break;
      chosen.push(entry.term);
      postings += entry.frequency;
    }
    return chosen;
  }

  return {
    search(request: TextSearchRequest): ScoredId[] {
      const topK = Math.floor(request.topK);
      if (!(topK > 0)) return [];
      const terms = chooseTerms(request.query);
      if (terms.length === 0) return [];
      const rows = search.all({
        match: terms.map(quoteTerm).join(' OR '),
        datastore: request.datastoreId,
        sources: filterList(request.filter?.datasourceIds),
        tenants: filterList(request.filter?.customIds),
        limit: topK,
      }) as { pk: number; rank: number }[];
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

    /** Tells the frequency cache that chunk rows changed; stale counts only affect term choice. */
    noteWrites(changedRows: number): void {
      writesSinceReset += changedRows;
      if (writesSinceReset >= FREQUENCY_CACHE_WRITES) {
        frequencies.clear();
        writesSinceReset = 0;
      }
    },

    /** Drops every cached frequency (after deletes of whole datastores, for instance). */
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
