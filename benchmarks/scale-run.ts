/**
 * One size of bench:scale, in a process of its own (started by benchmarks/scale.ts, or directly):
 *
 *   node --expose-gc dist/benchmarks/scale-run.js --chunks 100000 [--queries 1000] [--raw true] [--out file.json]
 *     [--recall-queries 100] [--ef-sweep 64,100,128,256,512] [--ef-construction 200] [--tmp <folder>]
 *     [--keep true]
 *
 * The corpus is never held in memory: chunk i's text and vector are computed from i whenever they
 * are needed (the embedder reads i back from the text), so the process's memory is the library's.
 * Memory is anonymous RSS (RssAnon of /proc/self/status): SQLite's memory map of its file is file
 * cache, not the process's memory, and is reported apart (RssFile).
 */
import Database from 'better-sqlite3';
import hnswlib from 'hnswlib-node';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { hnswIndex, type HnswIndex } from '../adapters/hnsw/index.js';
import { HNSW_DEFAULTS } from '../adapters/hnsw/options.js';
import { sqliteStores } from '../adapters/sqlite/index.js';
import { createRagdesk, type Ragdesk } from '../src/index.js';
import type { Embeddings } from '../src/ports/embeddings.js';
import { flags, latencySummary } from './lib/report.js';
import { scaleCorpus } from './lib/scale-corpus.js';
import { hnswBuilds } from './lib/hnswlib-build.js';

const args = flags(process.argv.slice(2));
const COUNT = Number(args.get('chunks') ?? 10_000);
const QUERIES = Number(args.get('queries') ?? 1000);
const DIMENSIONS = 384;
const M = HNSW_DEFAULTS.m;
/** The build beam; `--ef-construction` measures another against the default (bench:ef-construction has the raw builds). */
const EF_CONSTRUCTION = Number(args.get('ef-construction') ?? HNSW_DEFAULTS.efConstruction);
const EF_SEARCH = 64;
const TOP_K = 10;
const BATCH = Number(args.get('batch') ?? 2000);
const RECALL_QUERIES = Number(args.get('recall-queries') ?? (COUNT >= 1_000_000 ? 20 : 100));
/**
 * The raw hnswlib build of the same vectors, in this process after the library's run. Above 200k
 * only when asked (`--raw true`): at 1M it adds about half an hour.
 */
const RAW = args.get('raw') === 'true' || (args.get('raw') !== 'false' && COUNT <= 200_000);
/**
 * Beam widths for the recall curve. A query of top k searches with max(efSearch, k) and keeps the k
 * best, so the first 10 hits of a top-`ef` query are a top-10 search at that beam width.
 */
const EF_SWEEP = (args.get('ef-sweep') ?? '64,100,128,256,512').split(',').map(Number);
const dir = mkdtempSync(join(args.get('tmp') ?? tmpdir(), 'ragdesk-bench-scale-'));
/** `--keep true` leaves the data folder in place (its path is printed) for reopen profiling. */
const KEEP = args.get('keep') === 'true';

// ---- deterministic data: chunk i from i alone --------------------------------------------------
const corpus = scaleCorpus(COUNT, DIMENSIONS);
const chunk = (i: number) => corpus.chunk(i);
const queries = Array.from({ length: QUERIES }, (_, q) => corpus.query(q));
const queryVectors = new Map(queries.map((query) => [query.text, query.vector]));

const embeddings: Embeddings = {
  model: `synthetic-${DIMENSIONS}`,
  specificationVersion: 'v1',
  dimensions: DIMENSIONS,
  maxBatchSize: 4096,
  async embed(texts) {
    const vectors = texts.map((text) => {
      if (text.startsWith('doc ')) return chunk(Number(text.slice(4, text.indexOf(' ', 4)))).vector;
      const vector = queryVectors.get(text);
      if (!vector) throw new Error(`no vector for ${JSON.stringify(text.slice(0, 40))}`);
      return vector;
    });
    return { vectors, usage: { tokens: 0 } };
  },
};

// ---- memory ---------------------------------------------------------------------------------
function status(): { anon: number; file: number; hwm: number } {
  const text = readFileSync('/proc/self/status', 'utf8');
  const kib = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)?.[1] ?? 0);
  return { anon: kib('RssAnon') / 1024, file: kib('RssFile') / 1024, hwm: kib('VmHWM') / 1024 };
}

function settle(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
}

interface Snapshot {
  stage: string;
  anonMiB: number;
  fileMiB: number;
  heapUsedMiB: number;
  externalMiB: number;
  arrayBuffersMiB: number;
}

const stages: Snapshot[] = [];
function mark(stage: string): Snapshot {
  settle();
  const memory = process.memoryUsage();
  const { anon, file } = status();
  const snapshot = {
    stage,
    anonMiB: Math.round(anon),
    fileMiB: Math.round(file),
    heapUsedMiB: Math.round(memory.heapUsed / 2 ** 20),
    externalMiB: Math.round(memory.external / 2 ** 20),
    arrayBuffersMiB: Math.round(memory.arrayBuffers / 2 ** 20),
  };
  stages.push(snapshot);
  const heapDir = args.get('heap-snapshots');
  if (heapDir) writeHeapSnapshot(join(heapDir, `scale-${COUNT}-${stages.length}.heapsnapshot`));
  console.log(
    `[scale ${COUNT}] ${stage}: anon ${snapshot.anonMiB} MiB, file ${snapshot.fileMiB}, heap ${snapshot.heapUsedMiB}, external ${snapshot.externalMiB}`,
  );
  return snapshot;
}

/** The largest anonymous RSS seen while `work` runs (sampled every 20 ms, plus before and after). */
async function peakAnon<T>(work: () => Promise<T>): Promise<{ value: T; peakAnonMiB: number; seconds: number }> {
  let peak = status().anon;
  const timer = setInterval(() => {
    peak = Math.max(peak, status().anon);
  }, 20);
  const started = performance.now();
  try {
    const value = await work();
    return { value, peakAnonMiB: Math.round(Math.max(peak, status().anon)), seconds: (performance.now() - started) / 1000 };
  } finally {
    clearInterval(timer);
  }
}

function folderMiB(path: string): number {
  let bytes = 0;
  for (const entry of readdirSync(path, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += statSync(join(entry.parentPath, entry.name)).size;
  }
  return bytes / 2 ** 20;
}

/**
 * MiB per table and index of the SQLite file, from the dbstat virtual table (pages in use, free
 * pages apart): what the folder holds besides the vector index, measured rather than guessed.
 */
function sqliteBreakdown(path: string): Record<string, number> {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db.prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC').all() as {
      name: string;
      bytes: number;
    }[];
    const breakdown = Object.fromEntries(rows.map((row) => [row.name, row.bytes / 2 ** 20]));
    const { freelist_count: free, page_size: size } = {
      ...(db.prepare('PRAGMA freelist_count').get() as { freelist_count: number }),
      ...(db.prepare('PRAGMA page_size').get() as { page_size: number }),
    };
    breakdown['(free pages)'] = (free * size) / 2 ** 20;
    return breakdown;
  } finally {
    db.close();
  }
}

// ---- the run --------------------------------------------------------------------------------
let index: HnswIndex | undefined;
const open = (): Ragdesk => {
  index = hnswIndex({ dir: join(dir, 'indexes'), m: M, efConstruction: EF_CONSTRUCTION, efSearch: EF_SEARCH });
  return createRagdesk({ ...sqliteStores({ path: join(dir, 'ragdesk.db') }), index, embeddings });
};

async function timed(run: (q: number) => Promise<unknown>, count: number): Promise<{ p50: number; p99: number; mean: number }> {
  const samples: number[] = [];
  for (let q = 0; q < count; q++) {
    const started = performance.now();
    await run(q);
    samples.push(performance.now() - started);
  }
  return latencySummary(samples);
}

async function main(): Promise<void> {
  console.log(`[scale ${COUNT}] ${COUNT} chunks x ${DIMENSIONS} dims, ${corpus.clusters} clusters, data in ${dir}`);
  const base = mark('process start (modules loaded)');
  let ragdesk = open();
  let datastore = await ragdesk.datastores.create({ name: 'scale' });
  let textBytes = 0;
  const ingest = await peakAnon(async () => {
    for (let start = 0; start < COUNT; start += BATCH) {
      const documents: { text: string }[] = [];
      for (let i = start; i < Math.min(COUNT, start + BATCH); i++) {
        const { text } = chunk(i);
        textBytes += Buffer.byteLength(text);
        documents.push({ text });
      }
      await datastore.upsert(documents);
      if (start % (BATCH * 10) === 0)
        console.log(`[scale ${COUNT}] ingested ${start + documents.length} (${Math.round(status().anon)} MiB anon)`);
    }
    // Queries see queued vectors at once; the build is timed until the last one is in the graph.
    await index?.indexed();
  });
  const afterIngest = mark('after ingest');
  const warm = await peakAnon(async () => {
    for (let q = 0; q < QUERIES; q++) await datastore.query({ query: (queries[q] as { text: string }).text, topK: TOP_K });
  });
  const steady = mark(`after ingest + ${QUERIES} hybrid queries`);
  const closing = performance.now();
  await ragdesk.close();
  const closeMs = performance.now() - closing;
  settle();
  const diskMiB = folderMiB(dir);
  const indexMiB = folderMiB(join(dir, 'indexes'));
  const sqliteMiB = sqliteBreakdown(join(dir, 'ragdesk.db'));
  console.log(`[scale ${COUNT}] disk: ${diskMiB.toFixed(1)} MiB, index ${indexMiB.toFixed(1)}, SQLite by table/index (MiB):`);
  console.log(
    Object.entries(sqliteMiB)
      .map(([name, mib]) => `  ${name}: ${mib.toFixed(2)}`)
      .join('\n'),
  );
  mark('closed');

  // Reopen: the first hybrid query pays for whatever loading remains.
  ragdesk = open();
  datastore = await ragdesk.datastores.get(datastore.id);
  const reopen = await peakAnon(() => datastore.query({ query: (queries[0] as { text: string }).text, topK: TOP_K }));
  const reopened = mark('reopened, after the first hybrid query');
  const vector = await timed(
    (q) => datastore.query({ query: (queries[q] as { text: string }).text, topK: TOP_K, mode: 'vector' }),
    QUERIES,
  );
  const lexical = await timed(
    (q) => datastore.query({ query: (queries[q] as { text: string }).text, topK: TOP_K, mode: 'lexical' }),
    QUERIES,
  );
  const hybrid = await timed(
    (q) => datastore.query({ query: (queries[q] as { text: string }).text, topK: TOP_K, mode: 'hybrid' }),
    QUERIES,
  );
  const queried = mark(`reopened, after ${QUERIES} queries of each mode`);

  // Recall@10 of the vector path against exact search, on a sample of queries (one streaming pass).
  const sample = queries.slice(0, RECALL_QUERIES);
  const found = await Promise.all(sample.map((query) => datastore.query({ query: query.text, topK: TOP_K, mode: 'vector' })));
  const sweep: { ef: number; found: { text: string }[][] }[] = [];
  for (const ef of EF_SWEEP) {
    const hits: { text: string }[][] = [];
    for (const query of sample) {
      hits.push((await datastore.query({ query: query.text, topK: Math.max(ef, TOP_K), mode: 'vector' })).slice(0, TOP_K));
    }
    sweep.push({ ef, found: hits });
  }
  await ragdesk.close();
  const best = sample.map(() => [] as { i: number; score: number }[]);
  for (let i = 0; i < COUNT; i++) {
    const { vector: v } = chunk(i);
    sample.forEach((query, s) => {
      let score = 0;
      for (let d = 0; d < DIMENSIONS; d++) score += (v[d] as number) * (query.vector[d] as number);
      const top = best[s] as { i: number; score: number }[];
      if (top.length < TOP_K || score > (top[top.length - 1] as { score: number }).score) {
        top.push({ i, score });
        top.sort((x, y) => y.score - x.score);
        if (top.length > TOP_K) top.pop();
      }
    });
  }
  /** Exact top-10 found per sample query, in the sample's order (the first n compare with a run of fewer recall queries). */
  const hitsOf = (lists: readonly (readonly { text: string }[])[]) =>
    lists.map((fragments, s) => {
      const exact = new Set((best[s] as { i: number }[]).map((entry) => entry.i));
      return fragments.filter((fragment) => exact.has(Number(fragment.text.split(' ', 2)[1]))).length;
    });
  const recallOf = (hits: readonly number[]) => hits.reduce((sum, found) => sum + found, 0) / (sample.length * TOP_K);
  const recall = recallOf(hitsOf(found));
  const recallByEf = sweep.map(({ ef, found: lists }) => {
    const hitsPerQuery = hitsOf(lists);
    return { ef, recallAt10: recallOf(hitsPerQuery), hitsPerQuery };
  });
  console.log(
    `[scale ${COUNT}] recall@10 by beam width: ${recallByEf.map((row) => `ef ${row.ef} ${row.recallAt10.toFixed(3)}`).join(', ')}`,
  );

  // Reference in the same process: raw hnswlib-node build of the same vectors, same M/efConstruction.
  let raw: { buildSeconds: number; chunksPerSecond: number; indexMiB: number; anonMiB: number } | null = null;
  if (RAW) {
    settle();
    const before = status().anon;
    const rawIndex = new hnswlib.HierarchicalNSW('cosine', DIMENSIONS);
    const started = performance.now();
    rawIndex.initIndex(COUNT, M, EF_CONSTRUCTION, 100);
    for (let i = 0; i < COUNT; i++) rawIndex.addPoint(Array.from(chunk(i).vector), i);
    const buildSeconds = (performance.now() - started) / 1000;
    const rawPath = join(dir, 'raw.hnsw');
    await rawIndex.writeIndex(rawPath);
    raw = {
      buildSeconds,
      chunksPerSecond: COUNT / buildSeconds,
      indexMiB: statSync(rawPath).size / 2 ** 20,
      anonMiB: Math.round(status().anon - before),
    };
  }

  const result = {
    chunks: COUNT,
    dimensions: DIMENSIONS,
    ...hnswBuilds(),
    parameters: {
      m: M,
      efConstruction: EF_CONSTRUCTION,
      efSearch: EF_SEARCH,
      topK: TOP_K,
      batch: BATCH,
      queries: QUERIES,
      recallQueries: RECALL_QUERIES,
    },
    ingest: { seconds: ingest.seconds, chunksPerSecond: COUNT / ingest.seconds, peakAnonMiB: ingest.peakAnonMiB },
    memory: {
      baseAnonMiB: base.anonMiB,
      afterIngestAnonMiB: afterIngest.anonMiB,
      steadyAnonMiB: steady.anonMiB,
      queriesPeakAnonMiB: warm.peakAnonMiB,
      reopenedAnonMiB: reopened.anonMiB,
      reopenedAfterQueriesAnonMiB: queried.anonMiB,
      peakRssMiB: Math.round(status().hwm),
      stages,
    },
    disk: { folderMiB: diskMiB, indexMiB, textMiB: textBytes / 2 ** 20, sqliteMiB },
    reopen: { firstHybridMs: reopen.seconds * 1000, peakAnonMiB: reopen.peakAnonMiB, closeMs },
    latencyMs: { vector, lexical, hybrid },
    recallAt10: recall,
    recallByEf,
    raw,
  };
  const out = args.get('out');
  if (out) writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  else console.log(JSON.stringify(result, null, 2));
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => {
    if (KEEP) console.log(`[scale ${COUNT}] data folder kept: ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  });
