import { describe, expect, it } from 'vitest';
import { extractQueryTerms, splitWords } from '../../src/text/query-terms.js';

describe('splitWords', () => {
  it('folds compatibility forms and case, and splits on anything but letters, numbers and marks', () => {
    expect(splitWords('Ｆｕｌｌ-width ﬁle, Café!')).toEqual(['full', 'width', 'file', 'café']);
    expect(splitWords('हिन्दी भाषा')).toEqual(['हिन्दी', 'भाषा']);
    expect(splitWords('a "b" NEAR(c) d*')).toEqual(['a', 'b', 'near', 'c', 'd']);
  });

  it('never throws and yields nothing for empty or non-string input', () => {
    expect(splitWords('')).toEqual([]);
    expect(splitWords(undefined as unknown as string)).toEqual([]);
    expect(splitWords(42 as unknown as string)).toEqual([]);
  });
});

describe('extractQueryTerms', () => {
  it('drops stopwords, one-character words and repeats, in query order', () => {
    expect(extractQueryTerms('What is the cost of the Cost model? x y')).toEqual(['cost', 'model']);
  });

  it('counts characters in code points: one astral ideograph is one character, kept as a word', () => {
    // One ideograph is a word (a one-letter Latin word is not): see unspaced-scripts.ts.
    expect(extractQueryTerms('𠀋 𠀋𠀋 中文 x')).toEqual(['𠀋', '𠀋𠀋', '中文']);
    expect(extractQueryTerms('𝔘 x')).toEqual([]);
  });

  it('caps the number of terms (64 by default) and honours maxTerms', () => {
    const words = Array.from({ length: 100 }, (_, i) => `word${i}`).join(' ');
    expect(extractQueryTerms(words)).toHaveLength(64);
    expect(extractQueryTerms(words, { maxTerms: 3 })).toEqual(['word0', 'word1', 'word2']);
    expect(extractQueryTerms(words, { maxTerms: 0 })).toEqual([]);
    expect(extractQueryTerms(words, { maxTerms: 2.9 })).toEqual(['word0', 'word1']);
    expect(extractQueryTerms(words, { maxTerms: Infinity })).toHaveLength(100);
  });
});
