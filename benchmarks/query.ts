/**
 * bench:query — the query path at 100k chunks on the embedded default (SQLite + HNSW), against raw
 * hnswlib-node `searchKnn` plus a raw SQLite row fetch on the same vectors, measured in one run.
 *
 *   npm run bench:query -- [--chunks 100000] [--queries 1000] [--dimensions 384]
 */
import Database from 'better-sqlite3';
import hnswlib from 'hnswlib-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hnswIndex, type HnswIndex } from '../adapters/hnsw/index.js';
import { HNSW_DEFAULTS } from '../adapters/hnsw/options.js';
import { sqliteStores } from '../adapters/sqlite/index.js';
import { createRagdesk } from '../src/index.js';
import { exactTopK, precomputedEmbeddings, syntheticCorpus } from './lib/synthetic.js';
import { flags, latencySummary, printTable, writeResult } from './lib/report.js';

const args = flags(process.argv.slice(2));
const COUNT = Number(args.get('chunks') ?? 100_000);
const QUERIES = Number(args.get('queries') ?? 1000);
const DIMENSIONS = Number(args.get('dimensions') ?? 384);
const RECALL_QUERIES = Math.min(QUERIES, 200);
const { m: M, efConstruction: EF_CONSTRUCTION } = HNSW_DEFAULTS;
const EF_SEARCH = 64;
const TOP_K = 10;

const dir = mkdtempSync(join(tmpdir(), 'ragdesk-bench-query-'));
const rss = () => Math.round(process.memoryUsage().rss / 2 ** 20);

async function main(): Promise<void> {
  console.log(`bench:query — ${COUNT} chunks x ${DIMENSIONS} dims, ${QUERIES} queries, data in ${dir}`);
  const corpus = syntheticCorpus({ count: COUNT, dimensions: DIMENSIONS, clusters: 200, queries: QUERIES, seed: 42 });
  const table = new Map<string, Float32Array>();
  corpus.texts.forEach((text, i) => table.set(text, corpus.vectors[i] as Float32Array));
  corpus.queries.forEach((query) => table.set(query.text, query.vector));
  const embeddings = precomputedEmbeddings(`synthetic-${DIMENSIONS}`, DIMENSIONS, table);
  const rssStart = rss();

  // ragdesk: ingest through the public API.
  let index: HnswIndex | undefined;
  const open = () => {
    index = hnswIndex({ dir: join(dir, 'indexes'), m: M, efConstruction: EF_CONSTRUCTION, efSearch: EF_SEARCH, initialCapacity: COUNT });
    return createRagdesk({ ...sqliteStores({ path: join(dir, 'ragdesk.db') }), index, embeddings });
  };
  let ragdesk = open();
  let datastore = await ragdesk.datastores.create({ name: 'bench' });
  const ingestStart = performance.now();
  for (let start = 0; start < COUNT; start += 2000) {
    await datastore.upsert(corpus.texts.slice(start, start + 2000).map((text) => ({ text })));
  }
  // Timed until the last vector is in its graph: an upsert returns once its vectors are queued.
  await index?.indexed();
  const ingestSeconds = (performance.now() - ingestStart) / 1000;
  await ragdesk.close();
  ragdesk = open();
  datastore = await ragdesk.datastores.get(datastore.id);
  const openStart = performance.now();
  await datastore.query({ query: corpus.queries[0]!.text, mode: 'vector' });
  const reopenMs = performance.now() - openStart;
  // The first lexical search of a datastore builds its in-memory index: here from the rows (no
  // snapshot yet, nothing searched it before the close).
  let started = performance.now();
  await datastore.query({ query: corpus.queries[0]!.text, mode: 'hybrid' });
  const firstHybridFromRowsMs = performance.now() - started;

  // Raw: the same vectors in a bare hnswlib-node index and a bare SQLite table.
  const rawBuildStart = performance.now();
  const raw = new hnswlib.HierarchicalNSW('cosine', DIMENSIONS);
  raw.initIndex(COUNT, M, EF_CONSTRUCTION, 100);
  corpus.vectors.forEach((vector, label) => raw.addPoint(Array.from(vector), label));
  raw.setEf(EF_SEARCH);
  const rawBuildSeconds = (performance.now() - rawBuildStart) / 1000;
  const db = new Database(join(dir, 'raw.db'));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE rows (label INTEGER PRIMARY KEY, text TEXT NOT NULL, source TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO rows VALUES (?, ?, ?)');
  db.transaction(() => corpus.texts.forEach((text, label) => insert.run(label, text, 'bench')))();
  const fetchRows = db.prepare(`SELECT label, text, source FROM rows WHERE label IN (${Array(TOP_K).fill('?').join(',')})`);

  const timeRaw: number[] = [];
  const timeVector: number[] = [];
  const timeHybrid: number[] = [];
  let recallHits = 0;
  let rawRecallHits = 0;
  const idToLabel = new Map<string, number>();
  for (let round = 0; round < 2; round++) {
    // Round 0 warms caches; round 1 is measured.
    for (let q = 0; q < QUERIES; q++) {
      const query = corpus.queries[q]!;
      let t = performance.now();
      const result = raw.searchKnn(Array.from(query.vector), TOP_K);
      fetchRows.all(...result.neighbors.concat(Array(TOP_K - result.neighbors.length).fill(-1)));
      const rawMs = performance.now() - t;
      t = performance.now();
      const fragments = await datastore.query({ query: query.text, topK: TOP_K, mode: 'vector' });
      const vectorMs = performance.now() - t;
      t = performance.now();
      await datastore.query({ query: query.text, topK: TOP_K });
      const hybridMs = performance.now() - t;
      if (round === 0) continue;
      timeRaw.push(rawMs);
      timeVector.push(vectorMs);
      timeHybrid.push(hybridMs);
      if (q < RECALL_QUERIES) {
        const exact = new Set(exactTopK(corpus.vectors, query.vector, TOP_K));
        for (const fragment of fragments) {
          let label = idToLabel.get(fragment.chunk_id);
          if (label === undefined) {
            label = Number(fragment.text.split(' ', 2)[1]);
            idToLabel.set(fragment.chunk_id, label);
          }
          if (exact.has(label)) recallHits++;
        }
        for (const label of result.neighbors) if (exact.has(label)) rawRecallHits++;
      }
    }
  }
  const rssEnd = rss();
  started = performance.now();
  await ragdesk.close();
  const closeMs = performance.now() - started;
  // Closed after searches: the lexical index was saved as a snapshot, loaded by the next first search.
  ragdesk = open();
  datastore = await ragdesk.datastores.get(datastore.id);
  started = performance.now();
  await datastore.query({ query: corpus.queries[1]!.text, mode: 'hybrid' });
  const firstHybridFromSnapshotMs = performance.now() - started;
  await ragdesk.close();
  db.close();

  const raws = latencySummary(timeRaw);
  const vectors = latencySummary(timeVector);
  const hybrids = latencySummary(timeHybrid);
  const ratio = vectors.mean / raws.mean;
  const rows = [
    {
      path: 'raw hnswlib searchKnn + SQLite fetch',
      p50_ms: raws.p50,
      p99_ms: raws.p99,
      mean_ms: raws.mean,
      'recall@10': rawRecallHits / (RECALL_QUERIES * TOP_K),
    },
    {
      path: 'datastore.query (vector)',
      p50_ms: vectors.p50,
      p99_ms: vectors.p99,
      mean_ms: vectors.mean,
      'recall@10': recallHits / (RECALL_QUERIES * TOP_K),
    },
    { path: 'datastore.query (hybrid)', p50_ms: hybrids.p50, p99_ms: hybrids.p99, mean_ms: hybrids.mean, 'recall@10': Number.NaN },
  ];
  printTable(`Query latency, ${COUNT} chunks, top ${TOP_K}, ef ${EF_SEARCH}`, rows);
  const summary = {
    'vector / raw (mean)': ratio,
    'goal vector / raw': '<= 1.2',
    'hybrid p50 ms': hybrids.p50,
    'goal hybrid p50 ms': '< 3',
    'ingest s (public API)': ingestSeconds,
    'ingest chunks/s': COUNT / ingestSeconds,
    'raw hnsw build s': rawBuildSeconds,
    'reopen + first query ms': reopenMs,
    'first hybrid query, lexical index from rows ms': firstHybridFromRowsMs,
    'close (index files + lexical snapshot) ms': closeMs,
    'reopen + first hybrid query, from snapshot ms': firstHybridFromSnapshotMs,
    'rss MiB start': rssStart,
    'rss MiB end': rssEnd,
  };
  printTable(
    'Summary',
    Object.entries(summary).map(([metric, value]) => ({ metric, value })),
  );
  writeResult('query', {
    parameters: {
      count: COUNT,
      queries: QUERIES,
      dimensions: DIMENSIONS,
      m: M,
      efConstruction: EF_CONSTRUCTION,
      efSearch: EF_SEARCH,
      topK: TOP_K,
    },
    rows,
    summary,
  });
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => rmSync(dir, { recursive: true, force: true }));
