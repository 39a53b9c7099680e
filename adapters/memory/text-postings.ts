import type { RetrievalFilter, ScoredId } from '../../src/ports/records.js';
import type { TextSearchLists } from '../../src/ports/store.js';
import { DEFAULT_LEXICAL_OPTIONS } from '../bm25/lexical-indexes.js';
import { LexicalIndex } from '../bm25/lexical-index.js';
import { analyseText, queryStems } from '../bm25/lexical-terms.js';

/** What the lexical index needs to know about a chunk. */
export interface PostingSource {
  id: string;
  datasourceId: string;
  customId: string | null;
  text: string;
}

/**
 * bm25 over one datastore's chunks with the engine the SQLite store uses (adapters/bm25), so a
 * memory store ranks text exactly as the default store does. The index is kept in step with every
 * write, never built from rows or saved.
 */
export class TextPostings {
  private readonly index = new LexicalIndex(DEFAULT_LEXICAL_OPTIONS);
  /** Each indexed chunk's text: taking a chunk out of the index needs the words it went in with. */
  private readonly texts = new Map<string, string>();

  add(source: PostingSource): void {
    this.remove(source.id);
    this.index.addText({ id: source.id, datasourceId: source.datasourceId, customId: source.customId }, source.text);
    this.texts.set(source.id, source.text);
  }

  remove(id: string): void {
    const text = this.texts.get(id);
    if (text === undefined) return;
    this.index.remove(id, analyseText(text));
    this.texts.delete(id);
  }

  /** Best first. */
  search(query: string, topK: number, filter: RetrievalFilter | undefined): ScoredId[] {
    const limit = Math.floor(topK);
    if (!(limit > 0)) return [];
    const words = queryStems(query, DEFAULT_LEXICAL_OPTIONS.maxQueryTerms);
    return words.length === 0 ? [] : this.index.search(words, limit, filter);
  }

  /** `search`'s list and the list over the 4-grams of the stems (adapters/bm25/stem-grams.ts). */
  searchLists(query: string, topK: number, filter: RetrievalFilter | undefined): TextSearchLists {
    const limit = Math.floor(topK);
    const words = limit > 0 ? queryStems(query, DEFAULT_LEXICAL_OPTIONS.maxQueryTerms) : [];
    if (words.length === 0) return { words: [], stemGrams: [] };
    return { words: this.index.search(words, limit, filter), stemGrams: this.index.searchStemGrams(words, limit, filter) };
  }
}
