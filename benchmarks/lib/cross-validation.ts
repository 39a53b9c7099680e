import { folds } from './folds.js';

// Type aliases, not interfaces: the report's table rows take an index signature.
/** One fold: the candidate chosen on the other folds and how it scores on this one. */
type FoldRow = {
  fold: number;
  chosen: string;
  'train nDCG@10': number;
  'held-out nDCG@10': number;
  'held-out R@100': number;
  'default nDCG@10': number;
  gain: number;
};

/** One candidate over all queries, with its spread against the default across the folds. */
type CandidateRow = {
  candidate: string;
  'nDCG@10': number;
  'Recall@100': number;
  'worst fold - default': number;
  'best fold - default': number;
};

export interface CrossValidation {
  /** The query ids of each fold. */
  split: string[][];
  /** Mean of a per-query score table (`table[candidate][query index]`) for one candidate over some queries. */
  mean: (table: readonly Float64Array[], candidate: number, ids: readonly string[]) => number;
  foldRows: FoldRow[];
  /** Every candidate, best nDCG@10 over all queries first. */
  candidateRows: CandidateRow[];
  /** A fold column averaged over all queries (each fold weighted by its size). */
  weighted: (key: 'held-out nDCG@10' | 'held-out R@100' | 'default nDCG@10') => number;
}

/**
 * Chooses a candidate on all folds but one and scores it on that one, for every fold. `ndcg` and
 * `recall` hold one row of per-query scores per candidate (in `queryIds` order); `shipped` is the
 * default's index, which wins ties, so a fold keeps the default unless another candidate beats it.
 */
export function crossValidate(options: {
  names: readonly string[];
  ndcg: readonly Float64Array[];
  recall: readonly Float64Array[];
  queryIds: readonly string[];
  folds: number;
  seed: number;
  shipped: number;
}): CrossValidation {
  const { names, ndcg, recall, queryIds, shipped } = options;
  const indexOf = new Map(queryIds.map((id, i) => [id, i]));
  const mean = (table: readonly Float64Array[], c: number, ids: readonly string[]) =>
    ids.reduce((sum, id) => sum + table[c]![indexOf.get(id)!]!, 0) / ids.length;
  const split = folds(queryIds, options.folds, options.seed);
  const foldRows = split.map((held, f): FoldRow => {
    const training = split.filter((_, g) => g !== f).flat();
    let best = shipped;
    names.forEach((_, c) => {
      if (mean(ndcg, c, training) > mean(ndcg, best, training)) best = c;
    });
    return {
      fold: f + 1,
      chosen: names[best]!,
      'train nDCG@10': mean(ndcg, best, training),
      'held-out nDCG@10': mean(ndcg, best, held),
      'held-out R@100': mean(recall, best, held),
      'default nDCG@10': mean(ndcg, shipped, held),
      gain: mean(ndcg, best, held) - mean(ndcg, shipped, held),
    };
  });
  const candidateRows = names
    .map((name, c): CandidateRow => ({
      candidate: name,
      'nDCG@10': mean(ndcg, c, queryIds),
      'Recall@100': mean(recall, c, queryIds),
      'worst fold - default': Math.min(...split.map((held) => mean(ndcg, c, held) - mean(ndcg, shipped, held))),
      'best fold - default': Math.max(...split.map((held) => mean(ndcg, c, held) - mean(ndcg, shipped, held))),
    }))
    .sort((a, b) => b['nDCG@10'] - a['nDCG@10']);
  const weighted = (key: 'held-out nDCG@10' | 'held-out R@100' | 'default nDCG@10') =>
    foldRows.reduce((sum, row) => sum + row[key] * split[row.fold - 1]!.length, 0) / queryIds.length;
  return { split, mean, foldRows, candidateRows, weighted };
}
