/**
 * bench:stem-grams — the hybrid query with and without its third list (bm25 over the 4-grams of the
 * stems, docs/decisions/022-scoring-past-bm25.md), through the public API on the embedded default
 * (SQLite + HNSW + offline embedder), on a BEIR split.
 *
 *   npm run bench:stem-grams -- --dataset "$RAGDESK_DATASETS_DIR/datasets/scifact" [--split train] [--folds 5]
 *
 * One instance, one index of the corpus; every query runs twice, top 100, with the store's
 * `searchTextLists` shown (three lists fused) and hidden (two lists: what a store without it, as
 * Postgres, gets), in alternating order so both meet the same load. nDCG@10 and Recall@100 per fold
 * (the seeded folds of bench:fusion and bench:scoring-cv): the default is fixed, nothing is chosen
 * on the folds, so each fold's figure is held-out. Query latency p50 and p99 of each, same run, at
 * top 100 and at top 10.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { hnswIndex } from '../adapters/hnsw/index.js';
import { localEmbeddings } from '../adapters/local/index.js';
import { sqliteStores } from '../adapters/sqlite/index.js';
import { loadBeir, scoreRankings } from '../adapters/cli/beir.js';
import { createRagdesk } from '../src/index.js';
import { indexBeirCorpus } from './lib/beir-ragdesk.js';
import { folds } from './lib/folds.js';
import { flags, latencySummary, printTable, writeResult } from './lib/report.js';

const args = flags(process.argv.slice(2));
const FOLDS = Number(args.get('folds') ?? 5);
const SEED = Number(args.get('seed') ?? 1);

type Setting = 'three lists' | 'two lists';

async function main(): Promise<void> {
  const folder = args.get('dataset');
  if (!folder) throw new Error('usage: npm run bench:stem-grams -- --dataset <BEIR folder> [--split train] [--folds 5]');
  const split = args.get('split') ?? 'train';
  const dataset = loadBeir(folder, split);
  const dir = mkdtempSync(join(tmpdir(), 'ragdesk-bench-stem-grams-'));
  try {
    const { retrieval, accounts } = sqliteStores({ path: join(dir, 'ragdesk.db') });
    let withLists = true;
    // The store as it is, or without searchTextLists: the fusion then takes searchText alone.
    const store = new Proxy(retrieval, {
      get(target, property, receiver) {
        if (property === 'searchTextLists' && !withLists) return undefined;
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const ragdesk = createRagdesk({
      retrieval: store,
      accounts,
      index: hnswIndex({ dir: join(dir, 'indexes') }),
      embeddings: localEmbeddings(),
    });
    const datastore = await ragdesk.datastores.create({ name: 'stem-grams' });
    const seconds = await indexBeirCorpus(datastore, dataset);
    console.log(`indexed ${dataset.corpus.length} documents in ${seconds.toFixed(1)} s`);
    const settings: Setting[] = ['three lists', 'two lists'];
    const rankings = new Map<Setting, Map<string, string[]>>(settings.map((setting) => [setting, new Map()]));
    const latencies = new Map<Setting, number[]>(settings.map((setting) => [setting, []]));
    // A warm-up query of each, so neither pays for the first load.
    for (const setting of settings) {
      withLists = setting === 'three lists';
      await datastore.query({ query: 'warm up', topK: 100, mode: 'hybrid' });
    }
    for (const [q, query] of dataset.queries.entries()) {
      const order = q % 2 === 0 ? settings : [...settings].reverse();
      for (const setting of order) {
        withLists = setting === 'three lists';
        const started = performance.now();
        const fragments = await datastore.query({ query: query.text, topK: 100, mode: 'hybrid' });
        latencies.get(setting)!.push(performance.now() - started);
        const seen = new Set<string>();
        for (const fragment of fragments) seen.add(String(fragment.metadata.beir_id ?? fragment.datasource_name));
        rankings.get(setting)!.set(query.id, [...seen]);
      }
    }
    // Top 10, what a chat turn asks for: latency only, alternating again.
    const top10 = new Map<Setting, number[]>(settings.map((setting) => [setting, []]));
    for (const [q, query] of dataset.queries.entries()) {
      for (const setting of q % 2 === 0 ? settings : [...settings].reverse()) {
        withLists = setting === 'three lists';
        const started = performance.now();
        await datastore.query({ query: query.text, topK: 10, mode: 'hybrid' });
        top10.get(setting)!.push(performance.now() - started);
      }
    }
    await ragdesk.close();
    const ids = dataset.queries.map((query) => query.id);
    const split5 = folds(ids, FOLDS, SEED);
    const score = (setting: Setting, queryIds: readonly string[]) => scoreRankings(rankings.get(setting)!, dataset.qrels, queryIds);
    const foldRows = split5.map((held, f) => {
      const three = score('three lists', held);
      const two = score('two lists', held);
      return {
        fold: f + 1,
        queries: held.length,
        'nDCG@10 three lists': three.ndcg10,
        'nDCG@10 two lists': two.ndcg10,
        gain: three.ndcg10 - two.ndcg10,
        'R@100 three lists': three.recall100,
        'R@100 two lists': two.recall100,
      };
    });
    printTable(`${FOLDS}-fold nDCG@10 and Recall@100 on ${basename(folder)} ${split} (${ids.length} queries), hybrid top 100`, foldRows);
    const mean = (key: keyof (typeof foldRows)[number]) => foldRows.reduce((sum, row) => sum + row[key], 0) / foldRows.length;
    const overall = settings.map((setting) => {
      const all = score(setting, ids);
      return {
        setting,
        'CV nDCG@10 (mean of folds)': mean(setting === 'three lists' ? 'nDCG@10 three lists' : 'nDCG@10 two lists'),
        'nDCG@10 all queries': all.ndcg10,
        'R@100 all queries': all.recall100,
        'top 100 p50 ms': latencySummary(latencies.get(setting)!).p50,
        'top 100 p99 ms': latencySummary(latencies.get(setting)!).p99,
        'top 10 p50 ms': latencySummary(top10.get(setting)!).p50,
        'top 10 p99 ms': latencySummary(top10.get(setting)!).p99,
      };
    });
    printTable('Overall and query latency (ms, same run, alternating)', overall);
    writeResult(`stem-grams-${basename(folder)}-${split}`, {
      dataset: basename(folder),
      split,
      folds: FOLDS,
      seed: SEED,
      queries: ids.length,
      indexSeconds: seconds,
      foldRows,
      overall,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
