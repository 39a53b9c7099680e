/**
 * What a similarity threshold on fragment `score` keeps, measured on BEIR SciFact (train split)
 * with the embedder this instance uses (the offline one unless OPENAI_API_KEY is set). Clients of
 * the reference service drop fragments under 0.72; this says what that costs here.
 *
 * For each judged query: the vector search's top 100 fragments give every relevant document's best
 * similarity (a relevant document missing from them counts as below any threshold worth using), and
 * the hybrid top 10 (what an agent reads) gives how many relevant and other fragments a threshold keeps.
 *
 *   npm run build && node dist/benchmarks/score-threshold.js [--data <BEIR folder>] [--queries 300]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRagdesk } from '../adapters/node.js';
import { loadBeir } from '../adapters/cli/beir.js';
import { indexBeirCorpus } from './lib/beir-ragdesk.js';
import { datasetPath } from '../fixtures/datasets.js';
import { flags, percentile, printTable, writeResult } from './lib/report.js';

const THRESHOLDS = [0.5, 0.6, 0.7, 0.72, 0.8];
const args = flags(process.argv.slice(2));
const folder = args.get('data') ?? datasetPath('datasets', 'scifact');
const dataset = loadBeir(folder, 'train');
const queries = dataset.queries.slice(0, Number(args.get('queries') ?? dataset.queries.length));
const dir = mkdtempSync(join(tmpdir(), 'ragdesk-threshold-'));
const ragdesk = openRagdesk({ dataDir: dir, env: process.env });
try {
  const datastore = await ragdesk.datastores.create({ name: 'scifact' });
  const indexSeconds = await indexBeirCorpus(datastore, dataset);
  const relevantBest: number[] = [];
  const topRelevant: number[] = [];
  const topOther: number[] = [];
  const docOf = (fragment: { metadata: Record<string, unknown>; datasource_name: string }) =>
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- beir_id is the string id this benchmark stored
    String(fragment.metadata.beir_id ?? fragment.datasource_name);
  for (const query of queries) {
    const relevant = new Set(
      [...(dataset.qrels.get(query.id) ?? new Map<string, number>()).entries()].filter(([, grade]) => grade > 0).map(([id]) => id),
    );
    const vector = await datastore.query({ query: query.text, topK: 100, mode: 'vector' });
    const best = new Map<string, number>();
    for (const fragment of vector) {
      const doc = docOf(fragment);
      if (relevant.has(doc)) best.set(doc, Math.max(best.get(doc) ?? 0, fragment.score));
    }
    for (const doc of relevant) relevantBest.push(best.get(doc) ?? 0);
    for (const fragment of await datastore.query({ query: query.text, topK: 10, mode: 'hybrid' })) {
      (relevant.has(docOf(fragment)) ? topRelevant : topOther).push(fragment.score);
    }
  }
  const share = (values: readonly number[], threshold: number) =>
    values.filter((value) => value > threshold).length / Math.max(1, values.length);
  const rows = THRESHOLDS.map((threshold) => ({
    'score >': threshold,
    'relevant docs kept': `${(100 * share(relevantBest, threshold)).toFixed(1)}%`,
    'relevant in hybrid top 10 kept': `${(100 * share(topRelevant, threshold)).toFixed(1)}%`,
    'other in hybrid top 10 kept': `${(100 * share(topOther, threshold)).toFixed(1)}%`,
  }));
  const sorted = [...relevantBest].sort((a, b) => a - b);
  const embedder = ragdesk.notes.find((note) => note.startsWith('Embeddings')) ?? 'offline embedder';
  printTable(`Score thresholds on SciFact train (${queries.length} queries, ${relevantBest.length} relevant pairs; ${embedder})`, rows);
  console.log(
    `relevant best similarity: p10 ${percentile(sorted, 10).toFixed(3)}, p50 ${percentile(sorted, 50).toFixed(3)}, p90 ${percentile(sorted, 90).toFixed(3)}; indexed in ${indexSeconds.toFixed(0)} s`,
  );
  writeResult('score-threshold', {
    dataset: 'scifact train',
    embedder,
    queries: queries.length,
    relevantPairs: relevantBest.length,
    relevantBestPercentiles: { p10: percentile(sorted, 10), p50: percentile(sorted, 50), p90: percentile(sorted, 90) },
    thresholds: THRESHOLDS.map((threshold) => ({
      threshold,
      relevantDocsKept: share(relevantBest, threshold),
      relevantTop10Kept: share(topRelevant, threshold),
      otherTop10Kept: share(topOther, threshold),
    })),
  });
} finally {
  await ragdesk.close();
  rmSync(dir, { recursive: true, force: true });
}
