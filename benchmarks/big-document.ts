/**
 * bench:big-document — one document of many chunks (16,000 by default: a 20 M-character upload at
 * the default limits) stored through `sqliteStore.replaceChunks`, as the last step of an ingest
 * does, while a 10 ms interval timer watches the event loop. Reports, for a first store and for
 * a re-store where half the chunks changed: wall time, process CPU time, and the longest gap
 * between two ticks (wall, and the loop thread's own CPU time in it, which the machine's load does
 * not inflate). With `--search` the datastore's bm25 index is built first, so its maintenance is
 * part of the work, and each store is followed by a search (which waits for it).
 *
 *   npm run bench:big-document -- [--chunks 16000] [--search] [--runs 2]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqliteStore } from '../adapters/sqlite/index.js';
import type { ChunkRecord, DatasourceRecord, Store } from '../src/index.js';
import { makeChunk, makeDatasource, makeDatastore } from '../src/testing/fixtures.js';
import { samplePassages } from '../src/testing/sample-texts.js';
import { flags, printTable, writeResult, type Row } from './lib/report.js';
import { loopThreadCpuMs } from './lib/thread-cpu.js';

const args = flags(process.argv.slice(2));
const CHUNKS = Number(args.get('chunks') ?? 16_000);
const SEARCH = args.has('search');
const RUNS = Number(args.get('runs') ?? 2);
const CHUNK_CHARS = 1_250;
const DIMENSIONS = 384;
const TICK_MS = 10;

const passages = samplePassages(2_000, 5);

/** `CHUNKS` chunks of ~1,250 characters, distinct by `salt`. */
function documentChunks(source: DatasourceRecord, salt: string): ChunkRecord[] {
  return Array.from({ length: CHUNKS }, (_, i) => {
    let text = `${passages[i % passages.length] ?? ''} ${salt}${i}`;
    while (text.length < CHUNK_CHARS) text += ` ${passages[(i * 7 + text.length) % passages.length] ?? ''}`;
    return makeChunk(source, i, text.slice(0, CHUNK_CHARS), { dimensions: DIMENSIONS });
  });
}

/** Longest gap between ticks of a 10 ms interval, in wall time and in loop-thread CPU time. */
function watchLoop(): () => { wallMs: number; cpuMs: number } {
  let last = performance.now();
  let lastCpu = loopThreadCpuMs();
  let wallMs = 0;
  let cpuMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = loopThreadCpuMs();
    wallMs = Math.max(wallMs, now - last - TICK_MS);
    cpuMs = Math.max(cpuMs, Math.min(now - last, cpu - lastCpu));
    last = now;
    lastCpu = cpu;
  }, TICK_MS);
  return () => {
    clearInterval(timer);
    return { wallMs, cpuMs };
  };
}

async function measure(store: Store, datastoreId: string, source: DatasourceRecord, chunks: readonly ChunkRecord[]): Promise<Row> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  const stop = watchLoop();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const change = await store.replaceChunks(source.id, chunks);
  if (SEARCH) await store.searchText({ datastoreId, query: 'protein cell membrane', topK: 5 });
  const wall = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  await new Promise((resolve) => setTimeout(resolve, 2 * TICK_MS));
  const gap = stop();
  return {
    'wall ms': Math.round(wall),
    'CPU ms': Math.round((cpu.user + cpu.system) / 1000),
    'longest gap ms': Math.round(gap.wallMs),
    'loop-thread CPU in it ms': Math.round(gap.cpuMs),
    added: change.addedIds.length,
    removed: change.removedIds.length,
  };
}

const rows: Row[] = [];
for (let run = 1; run <= RUNS; run += 1) {
  const dir = mkdtempSync(join(tmpdir(), 'ragdesk-bench-big-'));
  const store = sqliteStore({ path: join(dir, 'store.db') });
  try {
    const datastore = makeDatastore({ embeddingDimensions: DIMENSIONS });
    await store.createDatastore(datastore);
    const source = makeDatasource(datastore, { name: 'big.pdf' });
    await store.createDatasource(source);
    if (SEARCH) await store.searchText({ datastoreId: datastore.id, query: 'protein', topK: 5 });
    const first = documentChunks(source, 'a');
    const edited = documentChunks(source, 'b').map((chunk, i) => (i % 2 === 0 ? (first[i] as ChunkRecord) : chunk));
    rows.push({ run, store: 'first', ...(await measure(store, datastore.id, source, first)) });
    rows.push({ run, store: 'half changed', ...(await measure(store, datastore.id, source, edited)) });
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const load = loadavg().map((value) => value.toFixed(2));
printTable(`One document of ${CHUNKS} chunks${SEARCH ? ', bm25 index built' : ''} (load average ${load.join(' ')})`, rows);
writeResult(`big-document${SEARCH ? '-search' : ''}`, { chunks: CHUNKS, search: SEARCH, loadAverage: load, rows });
