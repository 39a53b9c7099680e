/**
 * bench:retrieval — retrieval quality and speed on a BEIR dataset, through the public API on the
 * embedded default (SQLite + HNSW + offline embedder).
 *
 *   npm run bench:retrieval -- --dataset "$RAGDESK_DATASETS_DIR/datasets/scifact" [--split train] [--mode hybrid|vector|lexical|all] [--fresh] [--hit-cache-bytes N]
 *
 * Beside each query through the public API, the same query is timed on a plain in-memory bm25 (the
 * store's index class over the documents' text, called directly, top 100 ids): the floor of the
 * lexical path, measured under the same load. The ratio of the two p50s is the figure to compare.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { hnswIndex } from '../adapters/hnsw/index.js';
import { localEmbeddings } from '../adapters/local/index.js';
import { sqliteStores } from '../adapters/sqlite/index.js';
import { createRagdesk, type Datastore, type Ragdesk, type RetrievalMode } from '../src/index.js';
import { loadBeir } from '../adapters/cli/beir.js';
import { indexBeirCorpus, queryBeir } from './lib/beir-ragdesk.js';
import { flags, latencySummary, printTable, writeResult } from './lib/report.js';
import { LexicalIndex } from '../adapters/bm25/lexical-index.js';
import { queryStems } from '../adapters/bm25/lexical-terms.js';

const PUBLISHED_BM25_SCIFACT = { ndcg10: 0.679, recall100: 0.925, note: 'BM25 (Anserini, flat), BEIR test split' };

async function main(): Promise<void> {
  const args = flags(process.argv.slice(2));
  const folder = args.get('dataset');
  if (!folder)
    throw new Error(
      'usage: npm run bench:retrieval -- --dataset <BEIR folder> [--split train] [--mode hybrid|vector|lexical|all] [--fresh] [--hit-cache-bytes N]',
    );
  const split = args.get('split') ?? 'test';
  const modeArg = args.get('mode') ?? 'all';
  const modes: RetrievalMode[] = modeArg === 'all' ? ['hybrid', 'vector', 'lexical'] : [modeArg as RetrievalMode];
  const dataset = loadBeir(folder, split);
  const dir = mkdtempSync(join(tmpdir(), 'ragdesk-bench-retrieval-'));
  try {
    const hitCacheArg = args.get('hit-cache-bytes');
    const hitCacheBytes = hitCacheArg === undefined ? undefined : Number(hitCacheArg);
    let { ragdesk, indexed } = openEmbedded(dir, hitCacheBytes);
    let datastore = await ragdesk.datastores.create({ name: basename(folder) });
    console.log(
      `bench:retrieval — ${basename(folder)} (${split}): ${dataset.corpus.length} documents, ${dataset.queries.length} queries, embedder ${ragdesk.adapters.embeddings}`,
    );
    const indexSeconds = await indexBeirCorpus(datastore, dataset);
    // Queries time a settled datastore, as a server serves it after a restart: closed (the index
    // files written, the WAL checkpointed) and opened again with `load()`. Timed straight after
    // the ingest, the first mode's queries shared the process with the graph thread's inserts,
    // the index writes and the checkpoint, and its CPU per query counted them.
    // `--fresh`: time them straight after the ingest anyway.
    await indexed();
    if (!args.has('fresh')) {
      await ragdesk.close();
      ({ ragdesk, indexed } = openEmbedded(dir, hitCacheBytes));
      datastore = (await ragdesk.datastores.list())[0]!;
      await datastore.load();
    }
    const plain = new LexicalIndex();
    dataset.corpus.forEach((document) =>
      plain.addText(
        { id: document.id, datasourceId: 'corpus', customId: null },
        document.title ? `${document.title}\n\n${document.text}` : document.text,
      ),
    );
    const reference = (topK: number) => (query: string) => plain.search(queryStems(query, 64), topK);
    const rows = [];
    const top10Rows = [];
    for (const mode of modes) {
      const run = await queryBeir(datastore, dataset, mode, reference(100));
      const latency = latencySummary(run.latenciesMs);
      const floor = latencySummary(run.besideMs);
      rows.push({
        mode,
        'nDCG@10': run.scores.ndcg10,
        'Recall@100': run.scores.recall100,
        'MRR@10': run.scores.mrr10,
        'query p50 ms': latency.p50,
        'query p99 ms': latency.p99,
        'queries/s': dataset.queries.length / run.querySeconds,
        'CPU ms/query': run.cpuMsPerQuery,
        'in-memory bm25 p50 ms': floor.p50,
        'bm25 CPU ms/query': run.besideCpuMs,
        'p50 ÷ bm25': latency.p50 / floor.p50,
      });
      const top10 = await timeTop10(datastore, dataset.queries, mode, reference(10));
      top10Rows.push({ mode, ...top10 });
    }
    await ragdesk.close();
    printTable(
      `Retrieval quality (top 100 per query), indexing ${indexSeconds.toFixed(1)} s = ${(dataset.corpus.length / indexSeconds).toFixed(0)} docs/s`,
      rows,
    );
    printTable('Latency at top 10 (every query once more, the in-memory bm25 top 10 timed just before each)', top10Rows);
    if (basename(folder) === 'scifact') {
      console.log(
        `Reference: published ${PUBLISHED_BM25_SCIFACT.note}: nDCG@10 ${PUBLISHED_BM25_SCIFACT.ndcg10}, R@100 ${PUBLISHED_BM25_SCIFACT.recall100}`,
      );
    }
    writeResult(`retrieval-${basename(folder)}-${split}`, {
      dataset: basename(folder),
      split,
      queried: args.has('fresh') ? 'straight after the ingest' : 'closed after the ingest, reopened, load()',
      hitCacheBytes: hitCacheBytes ?? 'default',
      documents: dataset.corpus.length,
      queries: dataset.queries.length,
      embeddings: ragdesk.adapters.embeddings,
      indexSeconds,
      rows,
      top10: top10Rows,
      reference: basename(folder) === 'scifact' ? PUBLISHED_BM25_SCIFACT : null,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What `openRagdesk` opens (SQLite + HNSW + the offline embedder), with the store's hit cache at
 * `hitCacheBytes` when given (0: every hit read from SQLite).
 */
function openEmbedded(dir: string, hitCacheBytes: number | undefined): { ragdesk: Ragdesk; indexed: () => Promise<void> } {
  const index = hnswIndex({ dir: join(dir, 'indexes') });
  const stores = sqliteStores({ path: join(dir, 'ragdesk.db'), ...(hitCacheBytes === undefined ? {} : { hitCacheBytes }) });
  return { ragdesk: createRagdesk({ ...stores, index, embeddings: localEmbeddings() }), indexed: () => index.indexed() };
}

/** Top-10 p50 and CPU per query through the API, and of the in-memory bm25 top 10 beside each query. */
async function timeTop10(
  datastore: Datastore,
  queries: readonly { text: string }[],
  mode: RetrievalMode,
  beside: (query: string) => unknown,
): Promise<Record<string, number>> {
  const api: number[] = [];
  const floor: number[] = [];
  let apiCpu = 0;
  for (const query of queries) {
    let t = performance.now();
    beside(query.text);
    floor.push(performance.now() - t);
    const cpu = process.cpuUsage();
    t = performance.now();
    await datastore.query({ query: query.text, topK: 10, mode });
    api.push(performance.now() - t);
    const used = process.cpuUsage(cpu);
    apiCpu += (used.user + used.system) / 1000;
  }
  const p50 = latencySummary(api).p50;
  const floorP50 = latencySummary(floor).p50;
  return {
    'top-10 p50 ms': p50,
    'top-10 p99 ms': latencySummary(api).p99,
    'CPU ms/query': apiCpu / queries.length,
    'in-memory bm25 top-10 p50 ms': floorP50,
    'p50 ÷ bm25': p50 / floorP50,
  };
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
