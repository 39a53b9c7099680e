import { expect } from 'vitest';
import type { ScoredId } from '../../../src/ports/records.js';

/** The same ids in the same order as the brute-force reference, each score within 1e-9 of its. */
export function expectSameHits(actual: ScoredId[], expected: ScoredId[], note: string): void {
  expect(
    actual.map((hit) => hit.id),
    note,
  ).toEqual(expected.map((hit) => hit.id));
  actual.forEach((hit, i) => expect(Math.abs(hit.score - (expected[i] as ScoredId).score), note).toBeLessThan(1e-9));
}
