/**
 * bench:lexical — `sqliteStore().searchText` (in-memory bm25 index, exact top k with MaxScore) on
 * real text.
 *
 * 1. Quality on BEIR SciFact (5,183 abstracts, 809 claims): nDCG@10 / R@100 per bm25 setting.
 * 2. Speed at 100k chunks: the SciFact abstracts plus synthetic chunks made of sentences drawn from
 *    random abstracts (so term frequencies grow like a real corpus of the same domain), queried with
 *    the SciFact claims: the first search (which builds the index from the rows), p50/p99 after, and
 *    the memory the index takes (heap + array buffers, and RSS, after a full GC).
 *
 *   npm run build && node --expose-gc dist/benchmarks/lexical-search.js [--chunks 100000] [--dimensions 384]
 *     [--scifact dir] [--dir dir: keep the databases there and reuse them on the next run]
 */
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqliteStore } from '../adapters/sqlite/index.js';
import type { LexicalSearchOptions } from '../adapters/sqlite/index.js';
import type { ChunkRecord } from '../src/ports/records.js';
import type { Store } from '../src/ports/store.js';
import { makeDatasource, makeDatastore } from '../src/testing/fixtures.js';
import { loadBeir } from '../adapters/cli/beir.js';
import { evaluate, type BeirDataset, type Ranking } from './beir.js';
import { datasetPath } from '../fixtures/datasets.js';
import { flags, latencySummary, printTable, writeResult } from './lib/report.js';
import { seeded } from './lib/synthetic.js';

const args = flags(process.argv.slice(2));
const COUNT = Number(args.get('chunks') ?? 100_000);
const DIMENSIONS = Number(args.get('dimensions') ?? 384);
const SCIFACT = args.get('scifact') ?? datasetPath('datasets', 'scifact');

const SETTINGS: Record<string, Partial<LexicalSearchOptions>> = {
  'default (k1 1.2, b 0.75)': {},
  'k1 0.9, b 0.4 (Anserini BEIR)': { k1: 0.9, b: 0.4 },
};
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const MiB = 2 ** 20;

/** Heap + array buffers and RSS after a full collection (run with --expose-gc to make it full). */
function memory(): { heap: number; rss: number } {
  gc();
  const usage = process.memoryUsage();
  return { heap: (usage.heapUsed + usage.arrayBuffers) / MiB, rss: usage.rss / MiB };
}

async function load(store: Store, texts: readonly { id: string; text: string }[], dimensions: number): Promise<number> {
  const datastore = makeDatastore({ name: 'bench', embeddingDimensions: dimensions });
  await store.createDatastore(datastore);
  const random = seeded(7);
  const vector = () => Float32Array.from({ length: dimensions }, () => random() - 0.5);
  const started = performance.now();
  for (let start = 0; start < texts.length; start += 500) {
    const source = makeDatasource(datastore, { name: `batch-${start}` });
    await store.createDatasource(source);
    const chunks: ChunkRecord[] = texts.slice(start, start + 500).map((doc, position) => ({
      id: doc.id,
      datastoreId: datastore.id,
      datasourceId: source.id,
      customId: null,
      position,
      text: doc.text,
      tokenCount: doc.text.length / 4,
      charOffset: 0,
      hash: doc.id,
      pageNumber: null,
      metadata: {},
      vector: vector(),
    }));
    await store.replaceChunks(source.id, chunks);
  }
  return texts.length / ((performance.now() - started) / 1000);
}

/**
 * The first search builds the datastore's index from the rows (snapshots deleted first; timed
 * alone, with the memory it took); closing saves it as a snapshot, and the first search after
 * reopening loads that (timed too). Then every query runs twice and the second pass is timed.
 */
async function run(path: string, lexical: Partial<LexicalSearchOptions>, dataset: BeirDataset, topK: number) {
  const datastoreId = makeDatastore({ name: 'bench' }).id;
  const raw = new Database(path);
  raw.exec('DELETE FROM lexical_snapshots');
  raw.close();
  const rankings = new Map<string, Ranking>();
  const before = memory();
  let store = sqliteStore({ path, lexical });
  let started = performance.now();
  await store.searchText({ datastoreId, query: 'warm up', topK });
  const buildMs = performance.now() - started;
  const after = memory();
  started = performance.now();
  await store.close();
  const closeMs = performance.now() - started;
  store = sqliteStore({ path, lexical });
  started = performance.now();
  await store.searchText({ datastoreId, query: 'warm up', topK });
  const snapshotMs = performance.now() - started;
  const first: number[] = [];
  const warm: number[] = [];
  for (const pass of [first, warm]) {
    for (const query of dataset.queries) {
      started = performance.now();
      const results = await store.searchText({ datastoreId, query: query.text, topK });
      pass.push(performance.now() - started);
      rankings.set(
        query.id,
        results.map((result) => result.id),
      );
    }
  }
  await store.close();
  return {
    rankings,
    buildMs,
    closeMs,
    snapshotMs,
    indexHeapMiB: after.heap - before.heap,
    indexRssMiB: after.rss - before.rss,
    warm: latencySummary(warm),
  };
}

function overlapAt10(a: ReadonlyMap<string, Ranking>, b: ReadonlyMap<string, Ranking>): number {
  let total = 0;
  for (const [id, ranking] of b) {
    const mine = new Set((a.get(id) ?? []).slice(0, 10));
    const theirs = ranking.slice(0, 10);
    total += theirs.length === 0 ? 1 : theirs.filter((doc) => mine.has(doc)).length / theirs.length;
  }
  return total / Math.max(1, b.size);
}

/** Synthetic chunks of 5-9 sentences from random abstracts, until `count` chunks in all. */
function mixedCorpus(dataset: BeirDataset, count: number): { id: string; text: string }[] {
  const sentences = dataset.corpus.flatMap((doc) => doc.text.split(/(?<=\.)\s+/).filter((s) => s.length > 20));
  const random = seeded(11);
  const docs = dataset.corpus.map((doc) => ({ id: doc.id, text: `${doc.title}\n${doc.text}` }));
  for (let i = docs.length; i < count; i++) {
    const length = 5 + Math.floor(random() * 5);
    const parts = Array.from({ length }, () => sentences[Math.floor(random() * sentences.length)] as string);
    docs.push({ id: `synthetic-${i}`, text: parts.join(' ') });
  }
  return docs;
}

async function main(): Promise<void> {
  if (!existsSync(join(SCIFACT, 'qrels', 'train.tsv'))) {
    console.log(`[skip] bench:lexical needs BEIR SciFact at ${SCIFACT} (pass --scifact <dir>)`);
    return;
  }
  const dataset = loadBeir(SCIFACT, 'train');
  const kept = args.get('dir');
  const dir = kept ?? mkdtempSync(join(tmpdir(), 'ragdesk-bench-lexical-'));
  try {
    // 1. Quality on SciFact itself.
    const small = join(dir, 'scifact.db');
    const docs = dataset.corpus.map((doc) => ({ id: doc.id, text: `${doc.title}\n${doc.text}` }));
    if (!existsSync(small)) {
      const smallLoader = sqliteStore({ path: small });
      await load(smallLoader, docs, 8);
      await smallLoader.close();
    }
    const quality = [];
    for (const [name, lexical] of Object.entries(SETTINGS)) {
      const { rankings, warm } = await run(small, lexical, dataset, 100);
      quality.push({ setting: name, ...evaluate(rankings, dataset.qrels), p50Ms: warm.p50, p99Ms: warm.p99 });
    }
    printTable(`SciFact (${docs.length} abstracts, ${dataset.queries.length} claims), lexical only`, quality);

    // 2. Speed at COUNT chunks.
    const big = join(dir, `mixed-${COUNT}.db`);
    let rowsPerSecond: number | undefined;
    if (!existsSync(big)) {
      const loader = sqliteStore({ path: big });
      rowsPerSecond = await load(loader, mixedCorpus(dataset, COUNT), DIMENSIONS);
      await loader.close();
      console.log(`\nloaded ${COUNT} chunks x ${DIMENSIONS} dims at ${Math.round(rowsPerSecond)} chunks/s`);
    }
    const speed = [];
    let reference: Map<string, Ranking> | undefined;
    for (const [name, lexical] of Object.entries(SETTINGS)) {
      const { rankings, buildMs, closeMs, snapshotMs, indexHeapMiB, indexRssMiB, warm } = await run(big, lexical, dataset, 10);
      reference ??= rankings;
      // The synthetic chunks reuse sentences of the judged abstracts: distractors, equal for all settings.
      const { ndcg10 } = evaluate(rankings, dataset.qrels);
      speed.push({
        setting: name,
        p50Ms: warm.p50,
        p99Ms: warm.p99,
        meanMs: warm.mean,
        'first search, from rows ms': buildMs,
        'close (snapshot) ms': closeMs,
        'first search, from snapshot ms': snapshotMs,
        'index heap MiB': indexHeapMiB,
        'index RSS MiB': indexRssMiB,
        overlap10: overlapAt10(rankings, reference),
        ndcg10,
      });
    }
    printTable(`${COUNT} chunks, top 10, SciFact claims as queries`, speed);
    writeResult('lexical-search', { chunks: COUNT, dimensions: DIMENSIONS, insertRowsPerSecond: rowsPerSecond, quality, speed });
  } finally {
    if (kept === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
