/**
 * BEIR-format retrieval evaluation: loading a dataset folder and the usual metrics. Metrics follow
 * BEIR's pytrec_eval definitions (linear gain nDCG, recall over all judged-relevant documents, MRR of
 * the first relevant hit), averaged over the queries that have relevance judgments.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

export interface BeirDocument {
  id: string;
  title: string;
  text: string;
}

export interface BeirQuery {
  id: string;
  text: string;
}

/** query id → document id → graded relevance (> 0 is relevant). */
export type Qrels = Map<string, Map<string, number>>;

export interface BeirDataset {
  corpus: BeirDocument[];
  /** Only the queries that have judgments in the split, in file order. */
  queries: BeirQuery[];
  qrels: Qrels;
}

/** Document ids, best first. */
export type Ranking = readonly string[];

function readJsonLines(path: string): Array<Record<string, unknown>> {
  const bytes = readFileSync(path);
  const text = (path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function firstExisting(paths: readonly string[]): string | undefined {
  return paths.find((path) => existsSync(path));
}

/** Reads `corpus.jsonl[.gz]`, `queries.jsonl[.gz]` and `qrels/<split>.tsv` from a BEIR folder. */
export function loadBeir(folder: string, split: string): BeirDataset {
  const corpusPath = firstExisting([join(folder, 'corpus.jsonl'), join(folder, 'corpus.jsonl.gz')]);
  const queriesPath = firstExisting([join(folder, 'queries.jsonl'), join(folder, 'queries.jsonl.gz')]);
  const qrelsPath = join(folder, 'qrels', `${split}.tsv`);
  const missing = [
    corpusPath === undefined ? 'corpus.jsonl[.gz]' : undefined,
    queriesPath === undefined ? 'queries.jsonl[.gz]' : undefined,
    existsSync(qrelsPath) ? undefined : `qrels/${split}.tsv`,
  ].filter((name): name is string => name !== undefined);
  if (corpusPath === undefined || queriesPath === undefined || missing.length > 0) {
    throw new Error(`BEIR folder ${folder} is missing ${missing.join(', ')}`);
  }
  const corpus = readJsonLines(corpusPath).map((row) => ({
    id: String(row['_id']),
    title: typeof row['title'] === 'string' ? row['title'] : '',
    text: typeof row['text'] === 'string' ? row['text'] : '',
  }));
  const qrels: Qrels = new Map();
  const lines = readFileSync(qrelsPath, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  for (const line of lines.slice(lines[0]?.startsWith('query-id') ? 1 : 0)) {
    const [queryId, documentId, score] = line.split('\t');
    if (queryId === undefined || documentId === undefined) continue;
    const judged = qrels.get(queryId) ?? new Map<string, number>();
    judged.set(documentId, Number(score ?? 1));
    qrels.set(queryId, judged);
  }
  const queries = readJsonLines(queriesPath)
    .map((row) => ({ id: String(row['_id']), text: typeof row['text'] === 'string' ? row['text'] : '' }))
    .filter((query) => qrels.has(query.id));
  return { corpus, queries, qrels };
}

/** nDCG@k of one ranking, with linear gains as in pytrec_eval. */
export function ndcgAt(k: number, ranking: Ranking, relevant: ReadonlyMap<string, number>): number {
  let dcg = 0;
  ranking.slice(0, k).forEach((id, index) => {
    dcg += (relevant.get(id) ?? 0) / Math.log2(index + 2);
  });
  const ideal = [...relevant.values()]
    .filter((grade) => grade > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  const idcg = ideal.reduce((sum, grade, index) => sum + grade / Math.log2(index + 2), 0);
  return idcg === 0 ? 0 : dcg / idcg;
}

/** Share of the relevant documents found in the top k. */
export function recallAt(k: number, ranking: Ranking, relevant: ReadonlyMap<string, number>): number {
  const total = [...relevant.values()].filter((grade) => grade > 0).length;
  if (total === 0) return 0;
  return ranking.slice(0, k).filter((id) => (relevant.get(id) ?? 0) > 0).length / total;
}

/** Reciprocal rank of the first relevant document in the top k, else 0. */
export function mrrAt(k: number, ranking: Ranking, relevant: ReadonlyMap<string, number>): number {
  const index = ranking.slice(0, k).findIndex((id) => (relevant.get(id) ?? 0) > 0);
  return index < 0 ? 0 : 1 / (index + 1);
}

export interface Scores {
  ndcg10: number;
  recall100: number;
  mrr10: number;
}

/** Mean metrics over the queries with judgments; `rankings` maps query id to its ranking. */
export function evaluate(rankings: ReadonlyMap<string, Ranking>, qrels: Qrels, queryIds?: readonly string[]): Scores {
  const ids = queryIds ?? [...qrels.keys()];
  const total = { ndcg10: 0, recall100: 0, mrr10: 0 };
  for (const id of ids) {
    const ranking = rankings.get(id) ?? [];
    const relevant = qrels.get(id) ?? new Map<string, number>();
    total.ndcg10 += ndcgAt(10, ranking, relevant);
    total.recall100 += recallAt(100, ranking, relevant);
    total.mrr10 += mrrAt(10, ranking, relevant);
  }
  const n = Math.max(1, ids.length);
  return { ndcg10: total.ndcg10 / n, recall100: total.recall100 / n, mrr10: total.mrr10 / n };
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

/**
 * Reciprocal-rank fusion: score = Σ weight / (k + rank), rank 1-based, over the top `depth` of each
 * ranking; weights default to 1.
 */
export function reciprocalRankFusion(rankings: readonly Ranking[], k = 60, depth = 100, weights: readonly number[] = []): string[] {
  const fused = new Map<string, number>();
  rankings.forEach((ranking, list) => {
    const weight = weights[list] ?? 1;
    ranking.slice(0, depth).forEach((id, index) => fused.set(id, (fused.get(id) ?? 0) + weight / (k + index + 1)));
  });
  return [...fused.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([id]) => id);
}
