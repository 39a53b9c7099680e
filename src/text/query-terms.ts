import { ENGLISH_STOPWORDS } from './stopwords.js';
import { hasUnspacedScript, segmentWord } from './unspaced-scripts.js';

/** Options of {@link extractQueryTerms}. */
export interface QueryTermOptions {
  /**
   * Keep at most this many terms (the first ones, after stopwords and duplicates are dropped).
   * Default {@link DEFAULT_MAX_QUERY_TERMS}: a pasted document must not become a 5,000-term query.
   */
  maxTerms?: number;
}

/** Default cap of {@link extractQueryTerms}. */
const DEFAULT_MAX_QUERY_TERMS = 64;

/**
 * Anything that is not a letter, a number or a combining mark separates words. Marks are kept
 * inside words because several scripts (Devanagari, Thai, ...) write vowels as marks; NFKC has
 * already composed the Latin ones ("e" + U+0301 -> "é").
 */
const SEPARATOR = /[^\p{L}\p{N}\p{M}]+/u;

/**
 * Splits text into normalised words: NFKC, lowercase, split on anything but letters, numbers and
 * marks. Keeps every word (stopwords, one-letter words, repeats), so adapters can index text with
 * the same rules they apply to queries. Never throws; a non-string yields no words.
 */
export function splitWords(text: string): string[] {
  if (typeof text !== 'string' || text.length === 0) return [];
  // NFKC folds compatibility forms (full-width letters, ligatures, superscripts) so they match
  // their plain spelling; lowercase after, because NFKC can produce uppercase letters.
  const normalised = text.normalize('NFKC').toLowerCase();
  return normalised.split(SEPARATOR).filter((word) => word.length > 0);
}

/**
 * The searchable terms of a user query, in query order: normalised words (see {@link splitWords})
 * without English stopwords, without one-character words, without repeats.
 *
 * Terms contain only letters, numbers and marks, so no FTS operator (`"`, `*`, `NEAR(`, `-`, `:`)
 * survives; adapters may still quote them, which keeps keywords such as `AND` or `NEAR` literal.
 * Never throws, whatever the input.
 */
export function extractQueryTerms(text: string, options: QueryTermOptions = {}): string[] {
  const limit = normaliseLimit(options?.maxTerms);
  const terms: string[] = [];
  if (limit === 0) return terms;
  const seen = new Set<string>();
  for (const word of splitWords(text)) {
    // Counted in code points, so one character outside the BMP (a rare CJK ideograph) is one
    // character like any other, not two UTF-16 units.
    // One Chinese or Japanese character is a word; one Latin letter is noise.
    if ((!hasTwoCodePoints(word) && !hasUnspacedScript(word)) || ENGLISH_STOPWORDS.has(word) || seen.has(word)) continue;
    seen.add(word);
    terms.push(word);
    if (terms.length >= limit) break;
  }
  return terms;
}

/**
 * The words of `text` ({@link splitWords}) with runs of scripts written without spaces split into
 * characters and pairs (see unspaced-scripts.ts): the terms a lexical index stores.
 */
export function splitTerms(text: string): string[] {
  const terms: string[] = [];
  for (const word of splitWords(text)) segmentWord(word, (term) => terms.push(term));
  return terms;
}

/** Query words ({@link extractQueryTerms}) split as {@link splitTerms} splits documents, without repeats. */
export function segmentTerms(words: readonly string[]): string[] {
  const terms = new Set<string>();
  for (const word of words) segmentWord(word, (term) => terms.add(term));
  return [...terms];
}

function normaliseLimit(maxTerms: number | undefined): number {
  if (maxTerms === undefined || Number.isNaN(maxTerms)) return DEFAULT_MAX_QUERY_TERMS;
  if (maxTerms === Infinity) return Infinity;
  return Math.max(0, Math.floor(maxTerms));
}

function hasTwoCodePoints(word: string): boolean {
  if (word.length > 2) return true;
  let count = 0;
  for (const _ of word) count += 1;
  return count >= 2;
}
