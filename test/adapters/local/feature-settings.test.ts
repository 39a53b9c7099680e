import { describe, expect, it } from 'vitest';
import { DEFAULT_FEATURES } from '../../../adapters/local/features.js';
import { embedText } from '../../../adapters/local/local-embeddings.js';

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

describe('offline embedder feature settings', () => {
  it('takes character n-grams of the stem when asked, so inflections share all their n-grams', () => {
    const ofStem = { ...DEFAULT_FEATURES, charGramsOfStem: true };
    // Porter stems both to "studi"; the words themselves share only some 4-grams.
    const stemmed = cosine(embedText('studies', 1024, ofStem).vector, embedText('study', 1024, ofStem).vector);
    const plain = cosine(embedText('studies', 1024).vector, embedText('study', 1024).vector);
    expect(stemmed).toBeCloseTo(1, 6);
    expect(plain).toBeLessThan(0.9);
  });

  it('leaves the default vectors as they were (the option is off unless set)', () => {
    const text = 'Mitochondrial dysfunction in neurons';
    expect(embedText(text, 1024, { ...DEFAULT_FEATURES, charGramsOfStem: false }).vector).toEqual(embedText(text, 1024).vector);
  });
});
