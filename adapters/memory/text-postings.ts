import type { RetrievalFilter, ScoredId } from '../../src/ports/records.js';
import { extractQueryTerms, segmentTerms, splitTerms } from '../../src/text/query-terms.js';

/** What the lexical index needs to know about a chunk. */
export interface PostingSource {
  id: string;
  datasourceId: string;
  customId: string | null;
  text: string;
}

interface Document extends PostingSource {
  /** Term frequencies of the chunk's words. */
  terms: Map<string, number>;
  /** Word count, for bm25 length normalisation. */
  length: number;
}

/** bm25 parameters, the usual defaults (also FTS5's). */
const K1 = 1.2;
const B = 0.75;

/**
 * In-memory bm25 over one datastore's chunks: exact words (no stemming; unspaced scripts in
 * characters and pairs, see src/text/unspaced-scripts.ts), postings per term.
 * Plain and obviously correct rather than fast; this is the oracle other stores are checked against.
 */
export class TextPostings {
  private readonly documents = new Map<string, Document>();
  private readonly postings = new Map<string, Set<string>>();
  private totalLength = 0;

  add(source: PostingSource): void {
    this.remove(source.id);
    const words = splitTerms(source.text);
    const terms = new Map<string, number>();
    for (const word of words) terms.set(word, (terms.get(word) ?? 0) + 1);
    this.documents.set(source.id, { ...source, terms, length: words.length });
    this.totalLength += words.length;
    for (const term of terms.keys()) {
      let ids = this.postings.get(term);
      if (ids === undefined) this.postings.set(term, (ids = new Set()));
      ids.add(source.id);
    }
  }

  remove(id: string): void {
    const document = this.documents.get(id);
    if (document === undefined) return;
    this.documents.delete(id);
    this.totalLength -= document.length;
    for (const term of document.terms.keys()) {
      const ids = this.postings.get(term);
      ids?.delete(id);
      if (ids?.size === 0) this.postings.delete(term);
    }
  }

  /** Best first; ties keep the order chunks were added in, so results are deterministic. */
  search(query: string, topK: number, filter: RetrievalFilter | undefined): ScoredId[] {
    const limit = Math.floor(topK);
    if (!(limit > 0) || this.documents.size === 0) return [];
    const terms = segmentTerms(extractQueryTerms(query));
    const count = this.documents.size;
    const averageLength = this.totalLength / count || 1;
    const scores = new Map<string, number>();
    for (const term of terms) {
      const ids = this.postings.get(term);
      if (ids === undefined) continue;
      // The "+ 1" form of idf (Lucene's) stays positive even for terms in most chunks.
      const idf = Math.log(1 + (count - ids.size + 0.5) / (ids.size + 0.5));
      for (const id of ids) {
        const document = this.documents.get(id);
        if (document === undefined || !matchesFilter(document, filter)) continue;
        const frequency = document.terms.get(term) ?? 0;
        const norm = frequency + K1 * (1 - B + (B * document.length) / averageLength);
        scores.set(id, (scores.get(id) ?? 0) + (idf * frequency * (K1 + 1)) / norm);
      }
    }
    const order = new Map([...this.documents.keys()].map((id, index) => [id, index]));
    return [...scores]
      .map(([id, score]) => ({ id, score }))
      .sort((a, b) => b.score - a.score || (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0))
      .slice(0, limit);
  }
}

function matchesFilter(document: PostingSource, filter: RetrievalFilter | undefined): boolean {
  const datasourceIds = filter?.datasourceIds;
  if (datasourceIds && datasourceIds.length > 0 && !datasourceIds.includes(document.datasourceId)) {
    return false;
  }
  const customIds = filter?.customIds;
  if (customIds && customIds.length > 0) {
    return document.customId !== null && customIds.includes(document.customId);
  }
  return true;
}
