/**
 * Character n-grams of words for the n-gram list studied in bench:scoring-cv and bench:ngram-memory:
 * the store's folded words (not stemmed), one-letter words and English stopwords left out, each
 * word boundary-marked (`<word>`) as the offline embedder takes its n-grams.
 */
import { scanWords } from '../../adapters/bm25/lexical-terms.js';
import { ENGLISH_STOPWORDS } from '../../src/text/stopwords.js';

/** Character n-grams of a word with boundary marks (`<word>`). */
function charGrams(word: string, n: number, visit: (gram: string) => void): void {
  const marked = `<${word}>`;
  for (let start = 0; start + n <= marked.length; start++) visit(marked.slice(start, start + n));
}

/** The n-grams of `words` with their counts, and their number (the document's length for bm25). */
export function gramCounts(words: readonly string[], n: number): { counts: Map<string, number>; length: number } {
  const counts = new Map<string, number>();
  let length = 0;
  for (const word of words) {
    if (word.length < 2 || ENGLISH_STOPWORDS.has(word)) continue;
    charGrams(word, n, (gram) => {
      counts.set(gram, (counts.get(gram) ?? 0) + 1);
      length += 1;
    });
  }
  return { counts, length };
}

/** The folded words of a text, in order, as the store's analyser cuts them. */
export function foldedWords(text: string): string[] {
  const words: string[] = [];
  scanWords(text, (word) => words.push(word));
  return words;
}
