import { describe, expect, it } from 'vitest';
import { cosineSimilarity, similarityTo } from '../../src/util/cosine.js';
import { seededRandom } from '../../src/testing/random.js';

describe('similarityTo', () => {
  it('equals cosineSimilarity for many vectors against one query, zero and shorter vectors included', () => {
    const random = seededRandom(11);
    const vector = (length: number) => Float32Array.from({ length }, () => random() * 2 - 1);
    const query = vector(64);
    const similar = similarityTo(query);
    for (const b of [vector(64), vector(64), vector(40), new Float32Array(64), query]) {
      expect(similar(b)).toBeCloseTo(cosineSimilarity(query, b), 12);
    }
    expect(similar(query)).toBeCloseTo(1, 12);
    expect(similarityTo(new Float32Array(8))(vector(8))).toBe(0);
  });
});
