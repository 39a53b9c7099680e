import { describe, expect, it } from 'vitest';
import { expandQuery, type FeedbackDocument } from '../../src/text/relevance-feedback.js';

const doc = (score: number, words: Record<string, number>): FeedbackDocument => ({ counts: new Map(Object.entries(words)), score });

describe('expandQuery (RM3)', () => {
  it('mixes the query with the feedback model: query words at originalWeight, added words by their share', () => {
    const documents = [doc(3, { tide: 2, moon: 1, gravity: 1 }), doc(1, { tide: 1, ocean: 3 })];
    const expanded = expandQuery(['tide'], documents, { documents: 2, terms: 10, originalWeight: 0.5 });
    // P(w|R): tide 0.75*2/4 + 0.25*1/4 = 0.4375, moon 0.1875, gravity 0.1875, ocean 0.1875 (sum 1).
    const weight = Object.fromEntries(expanded.words.map((word, i) => [word, expanded.weights[i]]));
    expect(expanded.words[0]).toBe('tide');
    expect(weight.tide).toBeCloseTo(0.5 + 0.5 * 0.4375, 12);
    expect(weight.moon).toBeCloseTo(0.5 * 0.1875, 12);
    expect(weight.gravity).toBeCloseTo(0.5 * 0.1875, 12);
    expect(weight.ocean).toBeCloseTo(0.5 * 0.1875, 12);
    // Ties among the added words are ordered by word.
    expect(expanded.words.slice(1)).toEqual(['gravity', 'moon', 'ocean']);
  });

  it('keeps the best `terms` words, renormalised, and only the first `documents` documents', () => {
    const documents = [doc(1, { a1: 5, b1: 1 }), doc(1, { zz: 9 })];
    const expanded = expandQuery(['q1', 'q2'], documents, { documents: 1, terms: 1, originalWeight: 0.8 });
    // Per query word 0.8 / 2, scaled by the query length (2): 0.8. The kept word takes all 0.2, scaled: 0.4.
    expect(expanded).toEqual({ words: ['q1', 'q2', 'a1'], weights: [0.8, 0.8, expect.closeTo(0.4, 12)] });
  });

  it('leaves the query as it is without feedback: weight 1, no documents, no positive score, or no query', () => {
    const documents = [doc(2, { tide: 1, moon: 1 })];
    const plain = { words: ['tide'], weights: [1] };
    expect(expandQuery(['tide'], documents, { documents: 3, terms: 5, originalWeight: 1 })).toEqual(plain);
    expect(expandQuery(['tide'], [], { documents: 3, terms: 5, originalWeight: 0.5 })).toEqual(plain);
    expect(expandQuery(['tide'], [doc(0, { moon: 1 })], { documents: 3, terms: 5, originalWeight: 0.5 })).toEqual(plain);
    expect(expandQuery(['tide'], documents, { documents: 0, terms: 5, originalWeight: 0.5 })).toEqual(plain);
    expect(expandQuery([], documents, { documents: 3, terms: 5, originalWeight: 0.5 })).toEqual({ words: [], weights: [] });
  });
});
