/**
 * bench:retrieval — retrieval quality and speed on a BEIR dataset, through the public API on the
 * embedded default (SQLite + HNSW + offline embedder).
 *
 *   npm run bench:retrieval -- --dataset "$RAGDESK_DATASETS_DIR/datasets/scifact" [--split train] [--mode hybrid|vector|lexical|all]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { openRagdesk } from '../adapters/node.js';
import type { RetrievalMode } from '../src/index.js';
import { loadBeir } from '../adapters/cli/beir.js';
import { indexBeirCorpus, queryBeir } from './lib/beir-ragdesk.js';
import { flags, latencySummary, printTable, writeResult } from './lib/report.js';

const PUBLISHED_BM25_SCIFACT = { ndcg10: 0.679, recall100: 0.925, note: 'BM25 (Anserini, flat), BEIR test split' };

async function main(): Promise<void> {
  const args = flags(process.argv.slice(2));
  const folder = args.get('dataset');
  if (!folder)
    throw new Error('usage: npm run bench:retrieval -- --dataset <BEIR folder> [--split train] [--mode hybrid|vector|lexical|all]');
  const split = args.get('split') ?? 'test';
  const modeArg = args.get('mode') ?? 'all';
  const modes: RetrievalMode[] = modeArg === 'all' ? ['hybrid', 'vector', 'lexical'] : [modeArg as RetrievalMode];
  const dataset = loadBeir(folder, split);
  const dir = mkdtempSync(join(tmpdir(), 'ragdesk-bench-retrieval-'));
  try {
    const ragdesk = openRagdesk({ dataDir: dir, env: {} });
    const datastore = await ragdesk.datastores.create({ name: basename(folder) });
    console.log(
      `bench:retrieval — ${basename(folder)} (${split}): ${dataset.corpus.length} documents, ${dataset.queries.length} queries, embedder ${ragdesk.adapters.embeddings}`,
    );
    const indexSeconds = await indexBeirCorpus(datastore, dataset);
    const rows = [];
    for (const mode of modes) {
      const run = await queryBeir(datastore, dataset, mode);
      const latency = latencySummary(run.latenciesMs);
      rows.push({
        mode,
        'nDCG@10': run.scores.ndcg10,
        'Recall@100': run.scores.recall100,
        'MRR@10': run.scores.mrr10,
        'query p50 ms': latency.p50,
        'query p99 ms': latency.p99,
        'queries/s': dataset.queries.length / run.querySeconds,
      });
    }
    await ragdesk.close();
    printTable(
      `Retrieval quality (top 100 per query), indexing ${indexSeconds.toFixed(1)} s = ${(dataset.corpus.length / indexSeconds).toFixed(0)} docs/s`,
      rows,
    );
    if (basename(folder) === 'scifact') {
      console.log(
        `Reference: published ${PUBLISHED_BM25_SCIFACT.note}: nDCG@10 ${PUBLISHED_BM25_SCIFACT.ndcg10}, R@100 ${PUBLISHED_BM25_SCIFACT.recall100}`,
      );
    }
    writeResult(`retrieval-${basename(folder)}-${split}`, {
      dataset: basename(folder),
      split,
      documents: dataset.corpus.length,
      queries: dataset.queries.length,
      embeddings: ragdesk.adapters.embeddings,
      indexSeconds,
      rows,
      reference: basename(folder) === 'scifact' ? PUBLISHED_BM25_SCIFACT : null,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
