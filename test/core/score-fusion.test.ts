import { describe, expect, it } from 'vitest';
import { fuseByScore } from '../../src/datastores/score-fusion.js';

describe('fuseByScore', () => {
  it('keeps a lexical hit that is far ahead of the rest ahead of a vector-only favourite', () => {
    // bm25: "a" far ahead; vector: "b" first, "a" last. Scaled scores keep the bm25 gap.
    const fused = fuseByScore([
      {
        hits: [
          { id: 'b', score: 0.9 },
          { id: 'c', score: 0.85 },
          { id: 'a', score: 0.8 },
        ],
        weight: 0.3,
      },
      {
        hits: [
          { id: 'a', score: 20 },
          { id: 'b', score: 5 },
          { id: 'c', score: 4 },
        ],
        weight: 1,
      },
    ]);
    expect(fused.map((hit) => hit.id)).toEqual(['a', 'b', 'c']);
    expect(fused[0]?.score).toBeCloseTo(1, 10);
    expect(fused[1]?.score).toBeCloseTo(0.3 + 1 / 16, 10);
  });

  it('scales each list by its own range, counts a missing id as 0 and breaks ties by id', () => {
    const fused = fuseByScore([
      {
        hits: [
          { id: 'x', score: 0.5 },
          { id: 'y', score: 0.25 },
        ],
        weight: 1,
      },
      {
        hits: [
          { id: 'z', score: 3 },
          { id: 'w', score: 1 },
        ],
        weight: 1,
      },
    ]);
    expect(fused).toEqual([
      { id: 'x', score: 1 },
      { id: 'z', score: 1 },
      { id: 'w', score: 0 },
      { id: 'y', score: 0 },
    ]);
  });

  it('gives a list of equal scores (or one hit) full weight, and ignores empty lists', () => {
    expect(
      fuseByScore([
        { hits: [{ id: 'only', score: 7 }], weight: 0.5 },
        { hits: [], weight: 1 },
      ]),
    ).toEqual([{ id: 'only', score: 0.5 }]);
    expect(fuseByScore([])).toEqual([]);
  });
});
