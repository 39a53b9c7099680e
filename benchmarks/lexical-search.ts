/**
 * bench:lexical — `sqliteStore().searchText` (FTS5 bm25 with term pruning) on real text.
 *
 * 1. Quality on BEIR SciFact (5,183 abstracts, 809 claims): nDCG@10 / R@100 of each term-pruning
 *    setting against unpruned bm25 (every query term OR'ed).
 * 2. Speed at 100k chunks: the SciFact abstracts plus synthetic chunks made of sentences drawn from
 *    random abstracts (so term frequencies grow like a real corpus of the same domain), queried with
 *    the SciFact claims; p50/p99 per setting, and overlap@10 with unpruned results.
 *
 *   npm run build && node dist/benchmarks/lexical-search.js [--chunks 100000] [--dimensions 384]
 *     [--scifact dir] [--dir dir: keep the databases there and reuse them on the next run]
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sqliteStore } from '../adapters/sqlite/index.js';
import type { LexicalSearchLimits } from '../adapters/sqlite/index.js';
import type { ChunkRecord } from '../src/ports/records.js';
import type { Store } from '../src/ports/store.js';
import { makeDatasource, makeDatastore } from '../src/testing/fixtures.js';
import { evaluate, loadBeir, type BeirDataset, type Ranking } from './beir.js';
import { flags, latencySummary, PACKAGE_ROOT, printTable, writeResult } from './lib/report.js';
import { seeded } from './lib/synthetic.js';

const args = flags(process.argv.slice(2));
const COUNT = Number(args.get('chunks') ?? 100_000);
const DIMENSIONS = Number(args.get('dimensions') ?? 384);
const SCIFACT = args.get('scifact') ?? resolve(PACKAGE_ROOT, '..', 'shared', 'datasets', 'scifact');

const SETTINGS: Record<string, Partial<LexicalSearchLimits>> = {
  unpruned: { maxTerms: 64, maxQueryTerms: 64, postingBudget: 1e9 },
  'budget 8000': { postingBudget: 8_000 },
  'budget 4000': { postingBudget: 4_000 },
  'default (budget 2000)': {},
  'budget 1000': { postingBudget: 1_000 },
};

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
      id: doc.id, datastoreId: datastore.id, datasourceId: source.id, customId: null, position,
      text: doc.text, tokenCount: doc.text.length / 4, charOffset: 0, hash: doc.id, pageNumber: null,
      metadata: {}, vector: vector(),
    }));
    await store.replaceChunks(source.id, chunks);
  }
  return texts.length / ((performance.now() - started) / 1000);
}

/** Runs every query twice (the first pass fills the term-frequency cache) and times the second. */
async function run(store: Store, dataset: BeirDataset, topK: number) {
  const datastoreId = makeDatastore({ name: 'bench' }).id;
  const rankings = new Map<string, Ranking>();
  const cold: number[] = [];
  const warm: number[] = [];
  for (const pass of [cold, warm]) {
    for (const query of dataset.queries) {
      const started = performance.now();
      const results = await store.searchText({ datastoreId, query: query.text, topK });
      pass.push(performance.now() - started);
      rankings.set(query.id, results.map((result) => result.id));
    }
  }
  return { rankings, cold: latencySummary(cold), warm: latencySummary(warm) };
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
    for (const [name, limits] of Object.entries(SETTINGS)) {
      const store = sqliteStore({ path: small, lexicalLimits: limits });
      const { rankings, warm } = await run(store, dataset, 100);
      await store.close();
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
    for (const [name, limits] of Object.entries(SETTINGS)) {
      const store = sqliteStore({ path: big, lexicalLimits: limits });
      const { rankings, cold, warm } = await run(store, dataset, 10);
      await store.close();
      reference ??= rankings;
      // The synthetic chunks reuse sentences of the judged abstracts: distractors, equal for all settings.
      const { ndcg10 } = evaluate(rankings, dataset.qrels);
      speed.push({
        setting: name, p50Ms: warm.p50, p99Ms: warm.p99, meanMs: warm.mean, coldP50Ms: cold.p50,
        overlap10: overlapAt10(rankings, reference), ndcg10,
      });
    }
    printTable(`${COUNT} chunks, top 10, SciFact claims as queries (warm term-frequency cache)`, speed);
    writeResult('lexical-search', { chunks: COUNT, dimensions: DIMENSIONS, insertRowsPerSecond: rowsPerSecond, quality, speed });
  } finally {
    if (kept === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
