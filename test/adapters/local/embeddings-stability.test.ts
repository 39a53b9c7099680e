import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { embedText } from '../../../adapters/local/local-embeddings.js';
import { DEFAULT_FEATURES, type FeatureSettings } from '../../../adapters/local/features.js';
import { seededRandom } from '../../../src/testing/random.js';

/**
 * Stored vectors stay valid only while the model id's vectors never change: any change to
 * tokenising, features, weights, hashing or the order of the sums must bump the model version.
 * These digests were taken from the model as released; a faster implementation must reproduce them
 * bit for bit.
 */
const POOL = [
  'aspirin',
  'Aspirin',
  'ASPIRIN',
  'reduces',
  'reduced',
  'reduction',
  'risk',
  'risks',
  'heart',
  'attack',
  'myocardial',
  'infarction',
  'the',
  'of',
  'and',
  'in',
  'a',
  'is',
  'was',
  'with',
  'mitochondrial',
  'proteins',
  'protein',
  'folding',
  'chaperone',
  'chaperones',
  '2',
  '42',
  '1999',
  '3.14',
  'p<0.05',
  'naïve',
  'café',
  'façade',
  'ﬁne',
  'Ⅻ',
  'x²',
  'Straße',
  'İstanbul',
  'ΑΒΓ',
  'αβγ',
  'κινάση',
  'Москва',
  '检索增强生成',
  '测试',
  '今日は',
  '良い天気',
  'カタカナ',
  'ﾊﾝｶｸ',
  '漢字abc',
  'abc漢字',
  '한국어',
  'supercalifragilisticexpialidocious',
  'pneumonoultramicroscopicsilicovolcanoconiosis',
  'a1b2c3',
  "don't",
  "it's",
  'e.g.',
  'U.S.A.',
  '—',
  '...',
  '!!!',
  '(',
  ')',
  '\n',
  '\n\n',
  '\t',
  '<|endoftext|>',
  'zwj👨‍👩‍👧',
  'emoji😀',
  'combining\u0301',
  '\u0000',
  'IL-6',
  'TNF-α',
  'CD4+',
  'BRCA1',
  'COVID-19',
];

function texts(): string[] {
  const random = seededRandom(20261127);
  const pick = () => POOL[Math.floor(random() * POOL.length)] as string;
  const out: string[] = ['', ' ', 'the of and', POOL.join(' ')];
  for (let i = 0; i < 300; i++) {
    const length = Math.floor(random() ** 2 * 400);
    const words: string[] = [];
    for (let w = 0; w < length; w++) words.push(random() < 0.1 ? pick().repeat(2) : pick());
    out.push(words.join(random() < 0.5 ? ' ' : ', '));
  }
  return out;
}

/** More distinct words than the word cache holds: the cache empties in the middle of the text. */
function manyDistinctWords(): string {
  const random = seededRandom(7);
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const words: string[] = [];
  for (let i = 0; i < 120_000; i++) {
    let word = '';
    const length = 6 + Math.floor(random() * 5);
    for (let c = 0; c < length; c++) word += letters[Math.floor(random() * 26)];
    words.push(word);
  }
  return words.join(' ');
}

function digest(inputs: readonly string[], dimensions: number, settings?: FeatureSettings): string {
  const hash = createHash('sha256');
  for (const text of inputs) {
    const { vector, tokens } = embedText(text, dimensions, settings);
    hash.update(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength));
    hash.update(String(tokens));
  }
  return hash.digest('hex').slice(0, 32);
}

const OTHER_SETTINGS: FeatureSettings = { unigram: 0.5, bigram: 0.2, charGram: 0.8, charGramMin: 3, charGramMax: 5, englishPrior: false };

describe('local embedder vectors never change', () => {
  it('gives the released vectors at 1024 and 384 dimensions', () => {
    const inputs = texts();
    expect(digest(inputs, 1024)).toBe('ce0407fb0cbcf740ef755d0e0e1b916d');
    expect(digest(inputs, 384)).toBe('224d784605e8a90cbc4b6a4e0c663b2f');
    // Twice in a row: what one text leaves in the caches must not change the next one's vector.
    expect(digest(inputs, 1024)).toBe('ce0407fb0cbcf740ef755d0e0e1b916d');
  });

  it('gives the released vectors with other feature settings', () => {
    expect(digest(texts(), 512, OTHER_SETTINGS)).toBe('af4e32514544fb275e232d29b8b25f2a');
    expect(DEFAULT_FEATURES).toEqual({ unigram: 0.25, bigram: 0, charGram: 1, charGramMin: 4, charGramMax: 4, englishPrior: true });
  });

  it('gives the released vector for a text of more distinct words than the word cache holds', () => {
    const text = manyDistinctWords();
    expect(digest([text, 'aspirin reduces risk', text], 1024)).toBe('5ba297a3ebd67abd5e9607db301335e7');
  });
});
