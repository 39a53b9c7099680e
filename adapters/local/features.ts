import { stemmer } from 'stemmer';
import { ENGLISH_PRIOR, ENGLISH_PRIOR_LEVELS } from './english-prior.js';
import { finalize, hashPair, hashStart, hashStep, hashString } from './hashing.js';
import { STOPWORDS } from './stopwords.js';

/**
 * Weights of the feature families. They are part of the model: vectors made with different settings
 * are not comparable, so changing the defaults needs a new model version.
 */
export interface FeatureSettings {
  /** Porter-stemmed content words. */
  unigram: number;
  /** Adjacent content-word pairs (measured no gain on SciFact; off by default). */
  bigram: number;
  /** Character n-grams of each word with boundary marks, for morphology and spelling variants. */
  charGram: number;
  charGramMin: number;
  charGramMax: number;
  /** Weigh words by their rarity in general English (the corpus-free idf stand-in). */
  englishPrior: boolean;
  /** Take the character n-grams of the Porter stem instead of the word (absent: of the word). */
  charGramsOfStem?: boolean;
}

export const DEFAULT_FEATURES: Readonly<FeatureSettings> = {
  unigram: 0.25,
  bigram: 0,
  charGram: 1,
  charGramMin: 4,
  charGramMax: 4,
  englishPrior: true,
};

// Namespaces keep a stem, a bigram and an n-gram made of the same characters apart.
const SEED_UNIGRAM = 0x01;
const SEED_BIGRAM = 0x02;
const SEED_CHARGRAM = 0x03;

const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const IDEOGRAPHIC = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const DIGITS = /^\p{N}+$/u;

let prior: Map<string, number> | undefined;

/** Weight of a stem from its general-English frequency; words rare or absent there weigh 1. */
function englishPrior(term: string): number {
  if (prior === undefined) {
    prior = new Map();
    ENGLISH_PRIOR.forEach((list, level) => {
      for (const word of list.split(/\s+/)) if (word !== '') prior!.set(word, level / ENGLISH_PRIOR_LEVELS);
    });
  }
  return prior.get(term) ?? 1;
}

interface WordInfo {
  /** Numbers and ideographs are used as they are; other words as Porter stems. */
  plain: boolean;
  term: string;
  termHash: number;
  prior: number;
}

// Stemming and lookups dominate the cost of a text, and vocabularies are Zipfian: cache per word.
const words = new Map<string, WordInfo>();
const WORD_CACHE_LIMIT = 100_000;

function wordInfo(word: string): WordInfo {
  let info = words.get(word);
  if (info === undefined) {
    const plain = DIGITS.test(word) || IDEOGRAPHIC.test(word);
    const term = plain ? word : stemmer(word);
    info = { plain, term, termHash: hashString(term, SEED_UNIGRAM), prior: englishPrior(term) };
    if (words.size >= WORD_CACHE_LIMIT) words.clear();
    words.set(word, info);
  }
  return info;
}

/** Splits a run of ideographs into characters and character pairs, the usual CJK retrieval units. */
function pushTerms(token: string, out: string[]): void {
  if (!IDEOGRAPHIC.test(token)) {
    out.push(token);
    return;
  }
  const chars = Array.from(token);
  for (let index = 0; index < chars.length; index++) {
    out.push(chars[index]!);
    if (index + 1 < chars.length) out.push(chars[index]! + chars[index + 1]!);
  }
}

/** NFKC-normalised, lowercased word tokens of a text, stopwords included. */
export function wordTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.normalize('NFKC').toLowerCase().matchAll(WORD)) pushTerms(match[0], tokens);
  return tokens;
}

/** Receives features: the finished 32-bit hash, the weight of one occurrence, and how many occurred. */
export type FeatureSink = (hash: number, weight: number, occurrences: number) => void;

function emitCharGrams(word: string, weight: number, occurrences: number, settings: FeatureSettings, sink: FeatureSink): void {
  const marked = `<${word}>`;
  const { charGramMin: min, charGramMax: max } = settings;
  if (marked.length < min) return;
  let grams = 0;
  for (let n = min; n <= max; n++) grams += Math.max(0, marked.length - n + 1);
  // Dividing by the root of the n-gram count gives every word the same L2 mass whatever its length.
  const each = (settings.charGram * weight) / Math.sqrt(grams);
  for (let start = 0; start + min <= marked.length; start++) {
    let hash = hashStart(SEED_CHARGRAM);
    for (let end = start; end < marked.length && end - start < max; end++) {
      hash = hashStep(hash, marked.charCodeAt(end));
      if (end - start + 1 >= min) sink(finalize(hash), each, occurrences);
    }
  }
}

function addCount(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** Feeds the features of `tokens` to `sink`, visiting each distinct word once. */
export function extractFeatures(tokens: readonly string[], settings: FeatureSettings, sink: FeatureSink): void {
  const counts = new Map<string, number>();
  const pairs = new Map<string, number>();
  let previous: string | undefined;
  for (const token of tokens) {
    if (STOPWORDS.has(token)) {
      previous = undefined;
      continue;
    }
    addCount(counts, token);
    if (settings.bigram > 0 && previous !== undefined) addCount(pairs, `${previous}\u0000${token}`);
    previous = token;
  }
  for (const [word, count] of counts) {
    const info = wordInfo(word);
    const weight = settings.englishPrior ? info.prior : 1;
    if (settings.unigram > 0) sink(info.termHash, settings.unigram * weight, count);
    if (settings.charGram > 0 && !info.plain) emitCharGrams(settings.charGramsOfStem ? info.term : word, weight, count, settings, sink);
  }
  for (const [pair, count] of pairs) {
    const [first = '', second = ''] = pair.split('\u0000');
    sink(hashPair(wordInfo(first).termHash, wordInfo(second).termHash, SEED_BIGRAM), settings.bigram, count);
  }
}
