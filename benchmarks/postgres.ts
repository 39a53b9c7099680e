/**
 * bench:postgres — the same 20k-chunk data set on the embedded default (SQLite + HNSW) and on
 * Postgres + pgvector, in one run: ingest rate through the public API, query latency p50 / p99
 * (vector, hybrid, and vector with a 10% tenant filter) and recall@10 against exact search; then
 * pgvector's index settings (ef_search, m, ef_construction) and their recall / speed trade-off.
 *
 * Postgres here is PGlite (Postgres 18 compiled to WebAssembly, with real pgvector 0.8) served over
 * the wire protocol and driven by the `pg` client, as in the tests: the adapter's SQL and round
 * trips are real, but WebAssembly runs single-threaded and several times slower than a native
 * server (float parsing and tsvector building especially), so read its figures as a lower bound.
 *
 *   npm run bench:postgres -- [--chunks 20000] [--queries 300] [--dimensions 384] [--sweep 1]
 */
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { hnswIndex } from '../adapters/hnsw/index.js';
import { HNSW_DEFAULTS } from '../adapters/hnsw/options.js';
import { postgres, postgresIndex } from '../adapters/postgres/index.js';
import { sqliteStores } from '../adapters/sqlite/index.js';
import { createRagdesk, type Datastore, type Ragdesk } from '../src/index.js';
import type { VectorIndex } from '../src/ports/vector-index.js';
import { flags, latencySummary, printTable, writeResult, type Row } from './lib/report.js';
import { precomputedEmbeddings, syntheticCorpus, type SyntheticCorpus } from './lib/synthetic.js';

const args = flags(process.argv.slice(2));
const COUNT = Number(args.get('chunks') ?? 20_000);
const QUERIES = Number(args.get('queries') ?? 300);
const DIMENSIONS = Number(args.get('dimensions') ?? 384);
const SWEEP = args.get('sweep') !== '0';
const TOP_K = 10;
const TENANTS = 10;
const BATCH = 1_000;
const WARMUP = 30;

const dir = mkdtempSync(join(tmpdir(), 'ragdesk-bench-postgres-'));

interface Measured {
  ingestSeconds: number;
  rows: Row[];
}

/** Exact top-k labels by dot product (unit vectors), optionally among one tenant's documents. */
function exact(corpus: SyntheticCorpus, query: Float32Array, tenant?: number): Set<number> {
  const best: { label: number; score: number }[] = [];
  corpus.vectors.forEach((vector, label) => {
    if (tenant !== undefined && label % TENANTS !== tenant) return;
    let score = 0;
    for (let i = 0; i < vector.length; i++) score += (vector[i] as number) * (query[i] as number);
    if (best.length < TOP_K || score > (best[best.length - 1] as { score: number }).score) {
      best.push({ label, score });
      best.sort((a, b) => b.score - a.score);
      if (best.length > TOP_K) best.pop();
    }
  });
  return new Set(best.map((entry) => entry.label));
}

/** The document number is the second word of every synthetic text ("doc 123 ..."). */
const labelOf = (text: string) => Number(text.split(' ', 2)[1]);

async function ingest(datastore: Datastore, corpus: SyntheticCorpus): Promise<number> {
  const started = performance.now();
  for (let start = 0; start < COUNT; start += BATCH) {
    await datastore.upsert(
      corpus.texts.slice(start, start + BATCH).map((text, i) => ({ text, custom_id: `tenant-${(start + i) % TENANTS}` })),
    );
    process.stdout.write(`\r  ${Math.min(COUNT, start + BATCH)} / ${COUNT} chunks`);
  }
  process.stdout.write('\n');
  return (performance.now() - started) / 1000;
}

/** Vector, hybrid and filtered-vector queries through the public API: latency and recall@10. */
async function measureQueries(setup: string, datastore: Datastore, corpus: SyntheticCorpus): Promise<Row[]> {
  const modes = [
    {
      path: 'vector',
      run: (q: number) => datastore.query({ query: corpus.queries[q]!.text, topK: TOP_K, mode: 'vector' }),
      tenant: undefined,
    },
    { path: 'hybrid', run: (q: number) => datastore.query({ query: corpus.queries[q]!.text, topK: TOP_K }), tenant: undefined },
    {
      path: 'vector, 10% filter',
      run: (q: number) =>
        datastore.query({
          query: corpus.queries[q]!.text,
          topK: TOP_K,
          mode: 'vector',
          filters: { custom_ids: [`tenant-${q % TENANTS}`] },
        }),
      tenant: (q: number) => q % TENANTS,
    },
  ];
  const rows: Row[] = [];
  for (const mode of modes) {
    for (let q = 0; q < WARMUP; q++) await mode.run(q);
    const times: number[] = [];
    let hits = 0;
    for (let q = 0; q < QUERIES; q++) {
      const started = performance.now();
      const fragments = await mode.run(q);
      times.push(performance.now() - started);
      if (mode.path !== 'hybrid') {
        const truth = exact(corpus, corpus.queries[q]!.vector, mode.tenant?.(q));
        hits += fragments.filter((fragment) => truth.has(labelOf(fragment.text))).length;
      }
    }
    const latency = latencySummary(times);
    rows.push({
      setup,
      query: mode.path,
      p50_ms: latency.p50,
      p99_ms: latency.p99,
      'recall@10': mode.path === 'hybrid' ? '-' : hits / (QUERIES * TOP_K),
    });
  }
  return rows;
}

/** Index-level queries (no hydration) of one pgvector configuration: latency and recall@10. */
async function measureIndex(
  index: VectorIndex,
  datastoreId: string,
  corpus: SyntheticCorpus,
  labels: Map<string, number>,
  filtered: boolean,
): Promise<{ p50: number; p99: number; recall: number }> {
  for (let q = 0; q < WARMUP; q++) await index.query(datastoreId, { vector: corpus.queries[q]!.vector, topK: TOP_K });
  const times: number[] = [];
  let hits = 0;
  for (let q = 0; q < QUERIES; q++) {
    const tenant = q % TENANTS;
    const started = performance.now();
    const found = await index.query(datastoreId, {
      vector: corpus.queries[q]!.vector,
      topK: TOP_K,
      ...(filtered ? { filter: { customIds: [`tenant-${tenant}`] } } : {}),
    });
    times.push(performance.now() - started);
    const truth = exact(corpus, corpus.queries[q]!.vector, filtered ? tenant : undefined);
    hits += found.filter((hit) => truth.has(labels.get(hit.id) ?? -1)).length;
  }
  const latency = latencySummary(times);
  return { p50: latency.p50, p99: latency.p99, recall: hits / (QUERIES * TOP_K) };
}

async function runSqlite(corpus: SyntheticCorpus, embeddings: ReturnType<typeof precomputedEmbeddings>): Promise<Measured> {
  console.log('SQLite + HNSW (hnswlib-node): ingest');
  const ragdesk = createRagdesk({
    ...sqliteStores({ path: join(dir, 'ragdesk.db') }),
    index: hnswIndex({ dir: join(dir, 'indexes'), initialCapacity: COUNT }),
    embeddings,
  });
  try {
    const datastore = await ragdesk.datastores.create({ name: 'bench' });
    const ingestSeconds = await ingest(datastore, corpus);
    console.log('  queries');
    return { ingestSeconds, rows: await measureQueries('sqlite + hnsw', datastore, corpus) };
  } finally {
    await ragdesk.close();
  }
}

const loadAtStart = loadavg().map((value) => Number(value.toFixed(2)));

async function main(): Promise<void> {
  console.log(`bench:postgres — ${COUNT} chunks x ${DIMENSIONS} dims, ${QUERIES} queries, top ${TOP_K}`);
  const corpus = syntheticCorpus({ count: COUNT, dimensions: DIMENSIONS, clusters: 200, queries: QUERIES + WARMUP, seed: 42 });
  const table = new Map<string, Float32Array>();
  corpus.texts.forEach((text, i) => table.set(text, corpus.vectors[i] as Float32Array));
  corpus.queries.forEach((query) => table.set(query.text, query.vector));
  const embeddings = precomputedEmbeddings(`synthetic-${DIMENSIONS}`, DIMENSIONS, table);

  const sqlite = await runSqlite(corpus, embeddings);

  console.log('Postgres + pgvector (PGlite over the wire): ingest');
  const db = await PGlite.create({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 32 });
  await server.start();
  const pool = new pg.Pool({ connectionString: `postgres://postgres@${server.getServerConn()}/postgres`, max: 4 });
  const sweep: Row[] = [];
  let postgresMeasured: Measured;
  let ragdesk: Ragdesk | undefined;
  try {
    const { store, index } = await postgres({ pool });
    ragdesk = createRagdesk({ store, index, embeddings });
    const datastore = await ragdesk.datastores.create({ name: 'bench' });
    const ingestSeconds = await ingest(datastore, corpus);
    // A server's autovacuum analyzes a table after this many inserts; PGlite runs none (single user).
    await pool.query('ANALYZE ragdesk.chunks, ragdesk.datasources, ragdesk.datastores');
    console.log('  queries');
    postgresMeasured = { ingestSeconds, rows: await measureQueries('postgres + pgvector', datastore, corpus) };

    if (SWEEP) {
      const labels = new Map<string, number>();
      for await (const batch of store.iterateChunks(datastore.id)) for (const chunk of batch) labels.set(chunk.id, labelOf(chunk.text));
      const collection = { datastoreId: datastore.id, dimensions: DIMENSIONS, model: embeddings.model };
      const noSource = { sequence: async () => 0, entries: async function* () {} };
      const builds = [
        { m: 16, efConstruction: 64 },
        { m: 8, efConstruction: 32 },
        { m: 16, efConstruction: 128 },
        { m: 32, efConstruction: 128 },
      ];
      for (const build of builds) {
        console.log(`  sweep: build m=${build.m} ef_construction=${build.efConstruction}`);
        await index.drop(datastore.id);
        const builder = await postgresIndex({ pool, hnsw: build });
        const started = performance.now();
        await builder.open(collection, noSource);
        const buildSeconds = (performance.now() - started) / 1000;
        await builder.close();
        const sizeRow = await pool.query<{ bytes: string }>(
          `SELECT sum(pg_relation_size(indexrelid))::bigint AS bytes FROM pg_index WHERE indexrelid::regclass::text LIKE 'ragdesk.hnsw_%'`,
        );
        for (const efSearch of [20, 40, 100, 200]) {
          const searcher = await postgresIndex({ pool, hnsw: { efSearch } });
          await searcher.open(collection, noSource);
          const plain = await measureIndex(searcher, datastore.id, corpus, labels, false);
          const filtered = await measureIndex(searcher, datastore.id, corpus, labels, true);
          await searcher.close();
          sweep.push({
            m: build.m,
            ef_construction: build.efConstruction,
            build_s: buildSeconds,
            index_MiB: Number(sizeRow.rows[0]?.bytes ?? 0) / 2 ** 20,
            ef_search: efSearch,
            p50_ms: plain.p50,
            p99_ms: plain.p99,
            'recall@10': plain.recall,
            'filtered p50_ms': filtered.p50,
            'filtered recall@10': filtered.recall,
          });
        }
      }
    }
  } finally {
    await ragdesk?.close();
    await pool.end();
    await server.stop();
    await db.close();
  }

  const ingestRows: Row[] = [
    { setup: 'sqlite + hnsw', 'ingest s': sqlite.ingestSeconds, 'chunks/s': COUNT / sqlite.ingestSeconds },
    {
      setup: 'postgres + pgvector (PGlite)',
      'ingest s': postgresMeasured.ingestSeconds,
      'chunks/s': COUNT / postgresMeasured.ingestSeconds,
    },
  ];
  const queryRows = [...sqlite.rows, ...postgresMeasured.rows];
  printTable(`Ingest through datastore.upsert (${COUNT} chunks, batches of ${BATCH}, index in place)`, ingestRows);
  printTable(`Queries through datastore.query (top ${TOP_K}, each adapter's defaults)`, queryRows);
  if (sweep.length > 0) printTable('pgvector HNSW settings (index.query alone; build = CREATE INDEX over the loaded rows)', sweep);
  writeResult('postgres', {
    // Other processes share this machine's cores; their load inflates every figure alike.
    loadAverage: { atStart: loadAtStart, atEnd: loadavg().map((value) => Number(value.toFixed(2))) },
    parameters: {
      chunks: COUNT,
      queries: QUERIES,
      dimensions: DIMENSIONS,
      topK: TOP_K,
      tenants: TENANTS,
      batch: BATCH,
      sqlite: `hnswIndex defaults: m ${HNSW_DEFAULTS.m}, efConstruction ${HNSW_DEFAULTS.efConstruction}, efSearch ${HNSW_DEFAULTS.efSearch}`,
      postgres: 'postgresIndex defaults: m 16, ef_construction 64, ef_search 100, iterative scan relaxed_order, max_scan_tuples 20000',
      engine: 'PGlite 0.5.14 (PostgreSQL 18.6, WebAssembly) + pgvector 0.8.7, over pglite-socket with pg 8.23',
    },
    ingest: ingestRows,
    queries: queryRows,
    sweep,
  });
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => rmSync(dir, { recursive: true, force: true }));
