import { scanWords, stem } from '../../adapters/bm25/lexical-terms.js';
import { ENGLISH_STOPWORDS } from '../../src/text/stopwords.js';

/** A chunk's stems with counts, stopwords, numbers and one-letter words left out: what feedback draws words from. */
export function feedbackCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  scanWords(text, (word) => {
    if (word.length < 2 || ENGLISH_STOPWORDS.has(word) || /^\d+$/.test(word)) return;
    const term = stem(word);
    counts.set(term, (counts.get(term) ?? 0) + 1);
  });
  return counts;
}
