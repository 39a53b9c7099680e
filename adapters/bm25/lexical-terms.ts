/**
 * The words the lexical index stores and looks up: the same rules as SQLite FTS5's
 * `porter unicode61 remove_diacritics 2` tokenizer (which the index replaced), so scores and
 * quality carry over, except for scripts written without spaces, which unicode61 kept as one word
 * per run and which are split into characters and pairs here. On SciFact's 26k distinct stems the two differ in 52, all in JavaScript's
 * favour: NFKD also folds ligatures, sub- and superscripts ("ﬁ" → "fi", "H₂O" → "h2o").
 */
import { stemmer } from 'stemmer';
import { extractQueryTerms } from '../../src/text/query-terms.js';
import { hasUnspacedScript, segmentWord } from '../../src/text/unspaced-scripts.js';

/**
 * Stems of words already seen, for analyses (removals, queries): a stem costs ~0.7 µs, a lookup
 * ~0.08. Index builds go through their own word → term map and call this once per distinct word.
 * Bounded well below a large vocabulary: at 200k entries the cache held ~10 MB after an ingest of
 * 100k documents, mostly words seen once.
 */
const stems = new Map<string, string>();
const MAX_CACHED_STEMS = 32_768;

// eslint-disable-next-line no-control-regex -- the range starts at NUL on purpose: any ASCII text, controls included
const ASCII_ONLY = /^[\x00-\x7f]*$/;
/** Letters and numbers; everything else separates words (as unicode61 does). */
const WORD = /[\p{L}\p{N}]+/gu;
const MARKS = /\p{M}/gu;
/** Conjoining Hangul jamo: what NFKD makes of a Hangul syllable; NFC puts the syllable back. */
const JAMO = /[\u1100-\u11ff]/u;

/** The stem of a folded word (see {@link scanWords}), cached. */
export function stem(word: string): string {
  let stemmed = stems.get(word);
  if (stemmed === undefined) {
    stemmed = stemmer(word);
    if (stems.size >= MAX_CACHED_STEMS) stems.clear();
    stems.set(word, stemmed);
  }
  return stemmed;
}

/** A text's stems with their counts, and its length in tokens (every word counts, as in FTS5). */
export interface AnalysedText {
  counts: Map<string, number>;
  length: number;
}

/**
 * Calls `visit` with each word of `text`, folded (lower case, diacritics and compatibility forms
 * removed) but not stemmed, in order; runs of scripts written without spaces come as their
 * characters and pairs (see src/text/unspaced-scripts.ts). Never throws.
 */
export function scanWords(text: string, visit: (word: string) => void): void {
  if (typeof text !== 'string' || text.length === 0) return;
  if (ASCII_ONLY.test(text)) {
    // Most chunks are plain ASCII: a character scan is ~1.5x faster than the Unicode regex.
    const lower = text.toLowerCase();
    let start = -1;
    for (let i = 0; i <= lower.length; i++) {
      const code = i < lower.length ? lower.charCodeAt(i) : 32;
      if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) {
        if (start < 0) start = i;
      } else if (start >= 0) {
        visit(lower.slice(start, i));
        start = -1;
      }
    }
    return;
  }
  // NFKD splits accented letters into letter + mark; dropping the marks is remove_diacritics.
  let folded = text.normalize('NFKD').replace(MARKS, '').toLowerCase();
  if (JAMO.test(folded)) folded = folded.normalize('NFC');
  for (const match of folded.matchAll(WORD)) {
    // Chinese, Japanese, Korean, Thai...: characters and pairs (src/text/unspaced-scripts.ts).
    if (hasUnspacedScript(match[0])) segmentWord(match[0], visit);
    else visit(match[0]);
  }
}

/** Splits, folds and stems `text`. Never throws. */
export function analyseText(text: string): AnalysedText {
  const counts = new Map<string, number>();
  let length = 0;
  scanWords(text, (word) => {
    const term = stem(word);
    counts.set(term, (counts.get(term) ?? 0) + 1);
    length += 1;
  });
  return { counts, length };
}

/**
 * The distinct stems a query searches for, in query order: the shared query rules (stopwords and
 * one-letter words dropped, at most `maxTerms` words) then the document rules above.
 */
export function queryStems(query: string, maxTerms: number): string[] {
  const seen = new Set<string>();
  for (const word of extractQueryTerms(query, { maxTerms })) {
    for (const term of analyseText(word).counts.keys()) seen.add(term);
  }
  return [...seen];
}
