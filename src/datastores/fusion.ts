import type { ScoredId } from '../ports/records.js';

/** The constant of Cormack et al. (2009); 60 is the value their experiments and most engines use. */
export const RRF_K = 60;

/**
 * Reciprocal-rank fusion: each list contributes 1 / (k + rank) per id. Rank-based, so bm25 scores
 * and cosine similarities need no calibration against each other. Ties are broken by id so results
 * are deterministic.
 */
export function reciprocalRankFusion(lists: readonly (readonly ScoredId[])[], k = RRF_K): ScoredId[] {
  const fused = new Map<string, number>();
  for (const list of lists) {
    list.forEach((hit, rank) => {
      fused.set(hit.id, (fused.get(hit.id) ?? 0) + 1 / (k + rank + 1));
    });
  }
  return [...fused.entries()]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
