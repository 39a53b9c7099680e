import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

/**
 * A BEIR-format dataset (corpus.jsonl[.gz], queries.jsonl[.gz], qrels/<split>.tsv) and the usual
 * metrics with BEIR's definitions (linear-gain nDCG, recall over all judged-relevant documents, MRR
 * of the first relevant hit), so `ragdesk eval` reports figures comparable to published ones.
 */
export interface BeirDataset {
  corpus: { id: string; title: string; text: string }[];
  queries: { id: string; text: string }[];
  /** query id → document id → grade (> 0 relevant) */
  qrels: Map<string, Map<string, number>>;
}

export interface RetrievalScores {
  ndcg10: number;
  recall100: number;
  mrr10: number;
}

function jsonLines(path: string): Record<string, unknown>[] {
  const bytes = readFileSync(path);
  const text = (path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function pick(folder: string, name: string): string {
  const found = [join(folder, name), join(folder, `${name}.gz`)].find((path) => existsSync(path));
  if (!found) throw new Error(`${folder} has no ${name}[.gz] (BEIR layout expected)`);
  return found;
}

export function loadBeir(folder: string, split: string): BeirDataset {
  const qrelsPath = join(folder, 'qrels', `${split}.tsv`);
  if (!existsSync(qrelsPath)) throw new Error(`${folder} has no qrels/${split}.tsv`);
  const qrels = new Map<string, Map<string, number>>();
  const lines = readFileSync(qrelsPath, 'utf8')
    .split('\n')
    .filter((line) => line.trim());
  for (const line of lines.slice(lines[0]?.startsWith('query-id') ? 1 : 0)) {
    const [queryId, documentId, grade] = line.split('\t');
    if (!queryId || !documentId) continue;
    const judged = qrels.get(queryId) ?? new Map<string, number>();
    judged.set(documentId, Number(grade ?? 1));
    qrels.set(queryId, judged);
  }
  const text = (row: Record<string, unknown>, key: string) => (typeof row[key] === 'string' ? row[key] : '');
  return {
    corpus: jsonLines(pick(folder, 'corpus.jsonl')).map((row) => ({
      id: String(row._id),
      title: text(row, 'title'),
      text: text(row, 'text'),
    })),
    queries: jsonLines(pick(folder, 'queries.jsonl'))
      .map((row) => ({ id: String(row._id), text: text(row, 'text') }))
      .filter((query) => qrels.has(query.id)),
    qrels,
  };
}

export function scoreRankings(
  rankings: ReadonlyMap<string, readonly string[]>,
  qrels: BeirDataset['qrels'],
  queryIds: readonly string[],
): RetrievalScores {
  const total = { ndcg10: 0, recall100: 0, mrr10: 0 };
  for (const id of queryIds) {
    const ranking = rankings.get(id) ?? [];
    const relevant = qrels.get(id) ?? new Map<string, number>();
    const grades = [...relevant.values()].filter((grade) => grade > 0);
    const dcg = ranking.slice(0, 10).reduce((sum, doc, index) => sum + (relevant.get(doc) ?? 0) / Math.log2(index + 2), 0);
    const idcg = [...grades]
      .sort((a, b) => b - a)
      .slice(0, 10)
      .reduce((sum, grade, index) => sum + grade / Math.log2(index + 2), 0);
    total.ndcg10 += idcg === 0 ? 0 : dcg / idcg;
    total.recall100 += grades.length === 0 ? 0 : ranking.slice(0, 100).filter((doc) => (relevant.get(doc) ?? 0) > 0).length / grades.length;
    const first = ranking.slice(0, 10).findIndex((doc) => (relevant.get(doc) ?? 0) > 0);
    total.mrr10 += first < 0 ? 0 : 1 / (first + 1);
  }
  const n = Math.max(1, queryIds.length);
  return { ndcg10: total.ndcg10 / n, recall100: total.recall100 / n, mrr10: total.mrr10 / n };
}
