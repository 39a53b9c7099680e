import type { ScoredId } from '../ports/records.js';

/** The constant of Cormack et al. (2009); 60 is the value their experiments and most engines use. */
export const RRF_K = 60;

/**
 * Reciprocal-rank fusion: each list contributes weight / (k + rank) per id. Rank-based, so bm25 scores
 * and cosine similarities need no calibration against each other. Ties are broken by id so results
 * are deterministic.
 */
export function reciprocalRankFusion(
  lists: readonly (readonly ScoredId[])[],
  options: { k?: number; weights?: readonly number[] } = {},
): ScoredId[] {
  const k = options.k ?? RRF_K;
  const fused = new Map<string, number>();
  lists.forEach((list, which) => {
    const weight = options.weights?.[which] ?? 1;
    list.forEach((hit, rank) => {
      fused.set(hit.id, (fused.get(hit.id) ?? 0) + weight / (k + rank + 1));
    });
  });
  return [...fused.entries()]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
