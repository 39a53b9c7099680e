import type { RetrievalFilter, ScoredId } from '../records.js';

/** Lexical (full-text) search request. */
export interface TextSearchRequest {
  datastoreId: string;
  /** Raw user text. Adapters must accept any string (punctuation, quotes, FTS operators) without throwing. */
  query: string;
  topK: number;
  filter?: RetrievalFilter;
}

/**
 * The two lexical lists of one query: bm25 over the words (what `searchText` returns), and bm25
 * over the character 4-grams of the words' stems, which finds a chunk by a word's variants and
 * misspellings (the query reading only its 4-grams found in at most 5% of the datastore's chunks).
 */
export interface TextSearchLists {
  words: ScoredId[];
  stemGrams: ScoredId[];
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
  /**
   * Optional: `searchText`'s list and the 4-gram list (see {@link TextSearchLists}) of one query,
   * each at most `topK`, best first, with the same filter. Hybrid queries fuse the 4-gram list as a
   * third list when the store has it; stores without it are queried with `searchText` alone.
   */
  searchTextLists?(request: TextSearchRequest): Promise<TextSearchLists>;
}
