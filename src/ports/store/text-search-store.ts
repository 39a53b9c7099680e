import type { RetrievalFilter, ScoredId } from '../records.js';

/** Lexical (full-text) search request. */
export interface TextSearchRequest {
  datastoreId: string;
  /** Raw user text. Adapters must accept any string (punctuation, quotes, FTS operators) without throwing. */
  query: string;
  topK: number;
  filter?: RetrievalFilter;
}

/** Full-text search over chunk text (Store conformance: `searchText`). */
export interface TextSearchStore {
  /**
   * Full-text search over chunk text (bm25 or the engine's equivalent), best first, at most `topK`.
   * Scores are positive and higher is better; they are comparable only within one call.
   */
  searchText(request: TextSearchRequest): Promise<ScoredId[]>;
  /**
   * Optional: loads whatever `searchText` of this datastore needs in memory (an index built or read
   * on first use), so that the first search does not wait for it. Resolves once it is loaded; an
   * unknown datastore is not an error. Stores that search the database directly omit it.
   */
  prepareTextSearch?(datastoreId: string): Promise<void>;
}
