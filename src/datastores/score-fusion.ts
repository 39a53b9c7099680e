import type { ScoredId } from '../ports/records.js';

/** One retriever's hits, best first, with the weight its scaled scores get in the mix. */
export interface ScoredList {
  hits: readonly ScoredId[];
  weight: number;
}

/**
 * Score-based fusion ("relative score" fusion): each list's scores are scaled to 0..1 by min-max
 * over the list, then summed with the list weights; an id missing from a list gets 0 from it.
 * Unlike rank fusion it keeps how far apart the hits are: a bm25 top hit far ahead of the rest
 * stays ahead even when the other list disagrees. Ties are broken by id (deterministic).
 */
export function fuseByScore(lists: readonly ScoredList[]): ScoredId[] {
  const fused = new Map<string, number>();
  for (const { hits, weight } of lists) {
    if (hits.length === 0) continue;
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (const hit of hits) {
      if (hit.score < min) min = hit.score;
      if (hit.score > max) max = hit.score;
    }
    const span = max - min;
    for (const hit of hits) {
      const scaled = span > 0 ? (hit.score - min) / span : 1;
      fused.set(hit.id, (fused.get(hit.id) ?? 0) + weight * scaled);
    }
  }
  return [...fused.entries()]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
