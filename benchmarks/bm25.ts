/**
 * A small in-memory BM25 shaped like SQLite FTS5 with the porter tokenizer (unicode61 word split,
 * Porter stems, k1 = 1.2, b = 0.75, FTS5's idf floor), queried as an OR of all terms. It stands in for
 * the lexical half of hybrid retrieval in benchmarks.
 */
import { stemmer } from 'stemmer';

export interface Bm25Options {
  k1?: number;
  b?: number;
}

function terms(text: string): string[] {
  const words =
    text
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.map((word) => stemmer(word));
}

export class Bm25Index {
  readonly #postings = new Map<string, Array<[document: number, frequency: number]>>();
  readonly #lengths: number[] = [];
  readonly #k1: number;
  readonly #b: number;
  #totalLength = 0;

  constructor(documents: readonly string[], options: Bm25Options = {}) {
    this.#k1 = options.k1 ?? 1.2;
    this.#b = options.b ?? 0.75;
    documents.forEach((text, document) => {
      const counts = new Map<string, number>();
      const words = terms(text);
      for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
      for (const [word, frequency] of counts) {
        const list = this.#postings.get(word) ?? [];
        list.push([document, frequency]);
        this.#postings.set(word, list);
      }
      this.#lengths.push(words.length);
      this.#totalLength += words.length;
    });
  }

  /** One score per document (0 when no query term occurs). */
  score(query: string): Float64Array {
    const count = this.#lengths.length;
    const scores = new Float64Array(count);
    const average = this.#totalLength / Math.max(1, count);
    for (const term of new Set(terms(query))) {
      const postings = this.#postings.get(term);
      if (postings === undefined) continue;
      // FTS5 floors the idf of terms in more than half the documents instead of letting it go negative.
      const idf = Math.max(1e-6, Math.log((count - postings.length + 0.5) / (postings.length + 0.5)));
      for (const [document, frequency] of postings) {
        const norm = this.#k1 * (1 - this.#b + (this.#b * this.#lengths[document]!) / average);
        scores[document]! += (idf * frequency * (this.#k1 + 1)) / (frequency + norm);
      }
    }
    return scores;
  }
}
