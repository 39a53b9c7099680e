/**
 * BEIR-format retrieval evaluation for the benchmarks. The dataset loader and the metrics are the
 * CLI's (`ragdesk eval`), so the benchmarks and the command score rankings the same way: BEIR's
 * pytrec_eval definitions (linear gain nDCG, recall over all judged-relevant documents, MRR of the
 * first relevant hit), averaged over the queries that have relevance judgments.
 */
import { scoreRankings, type BeirDataset, type RetrievalScores } from '../adapters/cli/beir.js';

export type { BeirDataset } from '../adapters/cli/beir.js';
export type BeirQuery = BeirDataset['queries'][number];
/** query id → document id → graded relevance (> 0 is relevant). */
export type Qrels = BeirDataset['qrels'];
/** Document ids, best first. */
export type Ranking = readonly string[];
export type Scores = RetrievalScores;

/** Mean metrics over the queries with judgments (all judged queries unless `queryIds` is given). */
export function evaluate(rankings: ReadonlyMap<string, Ranking>, qrels: Qrels, queryIds?: readonly string[]): Scores {
  return scoreRankings(rankings, qrels, queryIds ?? [...qrels.keys()]);
}

/**
 * The top k ids by score, ties broken by ascending document id so results are reproducible. With
 * `matchedOnly`, documents scoring 0 or less are left out (a lexical index would not return them).
 */
export function topByScore(scores: ArrayLike<number>, ids: readonly string[], k: number, matchedOnly = false): string[] {
  const order: number[] = [];
  for (let index = 0; index < scores.length; index++) if (!matchedOnly || scores[index]! > 0) order.push(index);
  order.sort((a, b) => scores[b]! - scores[a]! || (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0));
  return order.slice(0, k).map((index) => ids[index]!);
}
