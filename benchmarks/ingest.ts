/**
 * bench:ingest — text to searchable on the embedded default (sqliteStore + hnswIndex +
 * localEmbeddings through createRagdesk), on real text: SciFact abstracts concatenated into
 * documents of 20-50 KB. Reports, in one run:
 *
 *   - end to end through `datastore.upsert` (one document per call by default): MB/s and chunks/s
 *     and the longest event-loop stall (monitorEventLoopDelay, resolution 10 ms: max and p99), in
 *     three runs: upserts awaited back to back; a setImmediate between upserts (as a job runner
 *     would give other work a turn); and that again while a second, already-filled and persisted
 *     datastore of the same instance is queried every 50 ms (latency p50/p99/max, measured from the
 *     call and from the 50 ms slot the query was due in);
 *   - the same data through each stage alone: cleanText, chunkSections (default tokenizer),
 *     localEmbeddings.embed in batches of maxBatchSize, sqliteStore.replaceChunks with the
 *     precomputed vectors (fresh db), hnswIndex upsert with the same vectors (fresh dir);
 *   - the reference: raw hnswlib-node build of the same vectors (cosine, hnswIndex's default M and
 *     efConstruction, addPoint loop) and the ratio index stage / raw;
 *   - which calls ran inside the longest stall.
 *
 *   npm run bench:ingest -- [--mb 5] [--per-upsert 1] [--data <BEIR folder>] [--interval 50]
 */
import Database from 'better-sqlite3';
import hnswlib from 'hnswlib-node';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { hnswIndex } from '../adapters/hnsw/index.js';
import { HNSW_DEFAULTS } from '../adapters/hnsw/options.js';
import { localEmbeddings } from '../adapters/local/index.js';
import { sqliteStore } from '../adapters/sqlite/index.js';
import { chunkSections, cleanText, type TextChunk } from '../src/ingest/index.js';
import { createRagdesk, type Datastore, type Ragdesk } from '../src/index.js';
import type { ChunkRecord, DatasourceRecord, DatastoreRecord, Embeddings, IndexEntry, Store, VectorIndex } from '../src/index.js';
import { newDatasource } from '../src/datasources/new-datasource.js';
import { chunkRecords } from '../src/datastores/chunk-records.js';
import { samplePassages } from '../src/testing/sample-texts.js';
import { newId, nowIso, sha256 } from '../src/util/ids.js';
import { loadBeir } from '../adapters/cli/beir.js';
import { datasetLabel, datasetPath } from '../fixtures/datasets.js';
import { flags, latencySummary, printTable, writeResult, type Row } from './lib/report.js';
import { instrument, StallWatch, Timeline } from './lib/stalls.js';
import { seeded } from './lib/synthetic.js';

const args = flags(process.argv.slice(2));
const MEGABYTES = Number(args.get('mb') ?? 5);
const PER_UPSERT = Math.max(1, Number(args.get('per-upsert') ?? 1));
const QUERY_INTERVAL_MS = Number(args.get('interval') ?? 50);
const DATA = args.get('data') ?? datasetPath('datasets', 'scifact');
const MIN_DOC = 20_000;
const MAX_DOC = 50_000;
const { m: M, efConstruction: EF_CONSTRUCTION } = HNSW_DEFAULTS;
const STALL_GOAL_MS = 50;

const dir = mkdtempSync(join(tmpdir(), 'ragdesk-bench-ingest-'));
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const ms = (start: number) => performance.now() - start;
const bytesOf = (texts: readonly string[]) => texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);

interface Corpus {
  source: string;
  documents: string[];
  queries: string[];
}

/** Abstracts ("title\n\ntext") joined by blank lines into documents of 20-50 KB, MEGABYTES in all. */
function buildCorpus(): Corpus {
  const random = seeded(7);
  let passages: string[];
  let queries: string[];
  let source: string;
  if (existsSync(join(DATA, 'corpus.jsonl.gz')) || existsSync(join(DATA, 'corpus.jsonl'))) {
    const dataset = loadBeir(DATA, 'train');
    passages = dataset.corpus.map((document) => (document.title ? `${document.title}\n\n${document.text}` : document.text));
    queries = dataset.queries.map((query) => query.text);
    source = `SciFact (${datasetLabel(DATA)})`;
  } else {
    console.log(`SciFact not found at ${DATA} (pass --data DIR): falling back to generated text`);
    passages = samplePassages(20_000, 3);
    queries = samplePassages(500, 11).map((passage) => passage.split('. ')[0] ?? passage);
    source = 'generated (src/testing/sample-texts)';
  }
  const documents: string[] = [];
  const target = MEGABYTES * 1e6;
  let total = 0;
  let next = 0;
  // Past the end of the corpus the abstracts repeat; with --mb above the corpus size chunks then
  // repeat too, which upsert embeds once per datastore.
  while (total < target) {
    const size = MIN_DOC + Math.floor(random() * (MAX_DOC - MIN_DOC));
    const parts: string[] = [];
    let bytes = 0;
    while (bytes < size && total + bytes < target) {
      const passage = passages[next++ % passages.length] as string;
      parts.push(passage);
      bytes += Buffer.byteLength(passage) + 2;
    }
    const document = parts.join('\n\n');
    documents.push(document);
    total += Buffer.byteLength(document);
  }
  return { source, documents, queries };
}

// ---------------------------------------------------------------------------------------------
// End to end

interface Instrumented {
  ragdesk: Ragdesk;
  timeline: Timeline;
  /** The datastore whose ingestion is attributed (prepare = getDatastore settled → findVectorsByHash). */
  watch: { ingestId: string | undefined };
}

function openInstrumented(path: string): Instrumented {
  const timeline = new Timeline();
  const watch: { ingestId: string | undefined } = { ingestId: undefined };
  let lastCurrent = -1;
  const store = instrument<Store>(
    sqliteStore({ path: join(path, 'ragdesk.db') }),
    timeline,
    (method) => (method === 'iterateChunks' ? undefined : `store.${method}`),
    'return',
    (method, callArgs, end) => {
      if (method === 'getDatastore' && callArgs[0] === watch.ingestId) lastCurrent = end;
    },
  );
  // writeDocuments runs cleanText + chunkSections synchronously between reading the datastore record
  // and looking up stored vectors by hash: that interval is the prepare step.
  const storeWithPrepare = new Proxy(store, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver) as unknown;
      if (property !== 'findVectorsByHash' || typeof value !== 'function') return value;
      return (...callArgs: unknown[]) => {
        if (callArgs[0] === watch.ingestId && lastCurrent >= 0) {
          timeline.record('prepare (cleanText + chunkSections)', lastCurrent, performance.now());
          lastCurrent = -1;
        }
        return (value as (...a: unknown[]) => unknown).apply(object, callArgs);
      };
    },
  });
  const index = instrument<VectorIndex>(
    hnswIndex({ dir: join(path, 'indexes'), m: M, efConstruction: EF_CONSTRUCTION }),
    timeline,
    (method) => `index.${method}`,
    'settle',
  );
  const embeddings = instrument<Embeddings>(
    localEmbeddings(),
    timeline,
    (method, callArgs) => (method === 'embed' ? `embed (${(callArgs[1] as { purpose?: string } | undefined)?.purpose ?? '?'})` : undefined),
    // The embedder yields (setImmediate) every few ms within a batch, so its span runs to the settle.
    'settle',
  );
  const ragdesk = createRagdesk({ store: storeWithPrepare, index, embeddings });
  return { ragdesk, timeline, watch };
}

interface EndToEnd {
  seconds: number;
  /** Longest single `datastore.upsert` call. */
  longestUpsertMs: number;
  /** Filled in after the run, from the datasources' chunk counts. */
  chunks: number;
  loopMaxMs: number;
  loopP99Ms: number;
  stallsOverGoal: number;
  /** Stalls in which this process itself used more than the goal in CPU time (load-independent). */
  cpuStallsOverGoal: number;
  /** Most CPU this process used within one stall, and that stall's length. */
  busiestStall: { cpuMs: number; ms: number; calls: { kind: string; ms: number }[] } | null;
  longestStall: { ms: number; calls: { kind: string; ms: number }[] } | null;
  /** Over every stall above the goal: ms of each call kind inside them, largest first. */
  stallTime: { kind: string; ms: number }[];
  longestCalls: Record<string, number>;
  queries?: {
    count: number;
    skippedSlots: number;
    fromCall: { p50: number; p99: number; max: number };
    fromSchedule: { p50: number; p99: number; max: number };
  };
}

async function ingest(
  instrumented: Instrumented,
  datastore: Datastore,
  documents: readonly string[],
  yieldBetween: boolean,
  live?: { datastore: Datastore; queries: readonly string[] },
): Promise<EndToEnd> {
  const { timeline, watch } = instrumented;
  watch.ingestId = datastore.id;
  timeline.clear();
  gc();
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  const stalls = new StallWatch(10, 20);
  const fromCall: number[] = [];
  const fromSchedule: number[] = [];
  let skippedSlots = 0;
  let ingesting = true;
  let queryLoop: Promise<void> = Promise.resolve();
  timeline.enabled = true;
  histogram.enable();
  stalls.start();
  if (live) {
    queryLoop = (async () => {
      let slot = performance.now() + QUERY_INTERVAL_MS;
      let q = 0;
      while (ingesting) {
        const wait = slot - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        if (!ingesting) break;
        const called = performance.now();
        const text = live.queries[q++ % live.queries.length] as string;
        await live.datastore.query({ query: text, topK: 5 });
        const end = performance.now();
        timeline.record('datastore.query (whole call)', called, end);
        fromCall.push(end - called);
        fromSchedule.push(end - slot);
        slot += QUERY_INTERVAL_MS;
        // Slots missed during a stall are skipped (and counted), not fired in a burst.
        while (slot < performance.now()) {
          slot += QUERY_INTERVAL_MS;
          skippedSlots++;
        }
      }
    })();
  }
  let longestUpsertMs = 0;
  const started = performance.now();
  for (let start = 0; start < documents.length; start += PER_UPSERT) {
    const t = performance.now();
    await datastore.upsert(documents.slice(start, start + PER_UPSERT).map((text, i) => ({ text, name: `doc-${start + i}` })));
    longestUpsertMs = Math.max(longestUpsertMs, ms(t));
    // A caller that gives timers and I/O a turn between documents, as a job runner would.
    if (yieldBetween) await new Promise((resolve) => setImmediate(resolve));
  }
  const seconds = ms(started) / 1000;
  ingesting = false;
  await queryLoop;
  // Let the delay monitor's timer fire once more, or a stall that lasts until the end goes unrecorded.
  await new Promise((resolve) => setTimeout(resolve, 25));
  stalls.stop();
  histogram.disable();
  timeline.enabled = false;

  const longest = stalls.longest();
  const busiest = stalls.busiest();
  const busiestStall = busiest
    ? {
        cpuMs: busiest.cpuMs,
        ms: busiest.ms,
        calls: timeline.attribute(busiest, new Set(['datastore.query (whole call)'])).filter((row) => row.ms >= 0.5),
      }
    : null;
  const longestStall = longest
    ? { ms: longest.ms, calls: timeline.attribute(longest, new Set(['datastore.query (whole call)'])).filter((row) => row.ms >= 0.5) }
    : null;
  const exclude = new Set(['datastore.query (whole call)']);
  const stallTotals = new Map<string, number>();
  for (const gap of stalls.gaps) {
    if (gap.ms <= STALL_GOAL_MS) continue;
    for (const row of timeline.attribute(gap, exclude)) stallTotals.set(row.kind, (stallTotals.get(row.kind) ?? 0) + row.ms);
  }
  const stallTime = [...stallTotals.entries()].map(([kind, total]) => ({ kind, ms: total })).sort((a, b) => b.ms - a.ms);
  const summary = (samples: number[]) => {
    const { p50, p99 } = latencySummary(samples);
    return { p50, p99, max: Math.max(...samples) };
  };
  return {
    seconds,
    longestUpsertMs,
    chunks: 0,
    loopMaxMs: histogram.max / 1e6,
    loopP99Ms: histogram.percentile(99) / 1e6,
    stallsOverGoal: stalls.countOver(STALL_GOAL_MS),
    cpuStallsOverGoal: stalls.countCpuOver(STALL_GOAL_MS),
    busiestStall,
    longestStall,
    stallTime,
    longestCalls: Object.fromEntries([...timeline.longest().entries()].map(([kind, value]) => [kind, Math.round(value * 10) / 10])),
    ...(live
      ? { queries: { count: fromCall.length, skippedSlots, fromCall: summary(fromCall), fromSchedule: summary(fromSchedule) } }
      : {}),
  };
}

async function countChunks(ragdesk: Ragdesk, datastore: Datastore): Promise<number> {
  const sources = await ragdesk.datasources.list(datastore.id);
  return sources.reduce((sum, source) => sum + source.nbChunks, 0);
}

// ---------------------------------------------------------------------------------------------
// Stages alone

interface Stage {
  seconds: number;
  /** Longest and median single call of the stage (per document, or per embedding batch). */
  longestMs: number;
  medianMs: number;
}

function stage(started: number, calls: number[]): Stage {
  const sorted = [...calls].sort((a, b) => a - b);
  return { seconds: ms(started) / 1000, longestMs: sorted[sorted.length - 1] ?? 0, medianMs: sorted[Math.floor(sorted.length / 2)] ?? 0 };
}

function timed<T>(items: readonly T[], run: (item: T, index: number) => void): Stage {
  gc();
  const calls: number[] = [];
  const started = performance.now();
  items.forEach((item, index) => {
    const t = performance.now();
    run(item, index);
    calls.push(ms(t));
  });
  return stage(started, calls);
}

async function timedAsync<T>(items: readonly T[], run: (item: T, index: number) => Promise<void>): Promise<Stage> {
  gc();
  const calls: number[] = [];
  const started = performance.now();
  for (const [index, item] of items.entries()) {
    const t = performance.now();
    await run(item, index);
    calls.push(ms(t));
  }
  return stage(started, calls);
}

async function main(): Promise<void> {
  const corpus = buildCorpus();
  const { documents } = corpus;
  const bytes = bytesOf(documents);
  const mb = bytes / 1e6;
  console.log(
    `bench:ingest — ${corpus.source}: ${documents.length} documents, ${mb.toFixed(2)} MB ` +
      `(${MIN_DOC / 1000}-${MAX_DOC / 1000} KB each), ${PER_UPSERT} per upsert, data in ${dir}`,
  );

  // Warm the tokenizer tables and the embedder once, outside every measurement.
  chunkSections(cleanText(documents[0] as string));

  // 1. End to end, quiet, upserts awaited back to back (nothing else runs in between).
  const first = openInstrumented(join(dir, 'e2e'));
  const quietStore = await first.ragdesk.datastores.create({ name: 'quiet' });
  const quiet = await ingest(first, quietStore, documents, false);
  quiet.chunks = await countChunks(first.ragdesk, quietStore);
  let t = performance.now();
  await first.ragdesk.close();
  const closeMs = ms(t);
  console.log(
    `end to end, back to back: ${quiet.seconds.toFixed(1)} s, ${quiet.chunks} chunks; close (index flush) ${closeMs.toFixed(0)} ms`,
  );

  // 2. Same, on a fresh instance, yielding to the event loop (setImmediate) between upserts.
  const yielding = openInstrumented(join(dir, 'e2e-yield'));
  const yieldStore = await yielding.ragdesk.datastores.create({ name: 'yield' });
  const spaced = await ingest(yielding, yieldStore, documents, true);
  spaced.chunks = await countChunks(yielding.ragdesk, yieldStore);
  await yielding.ragdesk.close();
  console.log(`end to end, yielding: ${spaced.seconds.toFixed(1)} s`);

  // 3. Yielding, while the first datastore (filled and persisted by run 1) is queried every 50 ms.
  const second = openInstrumented(join(dir, 'e2e'));
  const liveStore = await second.ragdesk.datastores.get(quietStore.id);
  t = performance.now();
  await liveStore.query({ query: corpus.queries[0] as string, topK: 5 });
  const reopenMs = ms(t);
  const busyStore = await second.ragdesk.datastores.create({ name: 'busy' });
  const busy = await ingest(second, busyStore, documents, true, { datastore: liveStore, queries: corpus.queries });
  busy.chunks = await countChunks(second.ragdesk, busyStore);
  await second.ragdesk.close();
  console.log(`end to end, yielding, with queries: ${busy.seconds.toFixed(1)} s, ${busy.queries?.count ?? 0} queries`);

  // 3. Each stage alone, on the same documents.
  let cleaned: string[] = [];
  const clean = timed(documents, (text) => void cleaned.push(cleanText(text)));
  const pieces: TextChunk[][] = [];
  const chunk = timed(cleaned, (text) => void pieces.push(chunkSections([{ text }])));
  const chunkCount = pieces.reduce((sum, list) => sum + list.length, 0);
  cleaned = [];

  const embedder = localEmbeddings();
  const textsByHash = new Map<string, string>();
  for (const list of pieces) for (const piece of list) textsByHash.set(piece.hash, piece.text);
  const hashes = [...textsByHash.keys()];
  const batches: string[][] = [];
  for (let start = 0; start < hashes.length; start += embedder.maxBatchSize)
    batches.push(hashes.slice(start, start + embedder.maxBatchSize));
  const vectors = new Map<string, Float32Array>();
  const embed = await timedAsync(batches, async (batch) => {
    const result = await embedder.embed(
      batch.map((hash) => textsByHash.get(hash) as string),
      { purpose: 'document' },
    );
    result.vectors.forEach((vector, i) => vectors.set(batch[i] as string, vector));
  });
  // One document's chunks in one call, as upsert of one document does.
  const perDocEmbed = await timedAsync(pieces, async (list) => {
    for (let start = 0; start < list.length; start += embedder.maxBatchSize) {
      await embedder.embed(
        list.slice(start, start + embedder.maxBatchSize).map((piece) => piece.text),
        { purpose: 'document' },
      );
    }
  });

  const store = sqliteStore({ path: join(dir, 'stage.db') });
  const now = nowIso();
  const datastoreId = newId();
  const stageDatastore: DatastoreRecord = {
    id: datastoreId,
    ownerId: null,
    name: 'stage',
    description: '',
    embeddingModel: embedder.model,
    embeddingDimensions: embedder.dimensions,
    createdAt: now,
    updatedAt: now,
  };
  await store.createDatastore(stageDatastore);
  const datasources: DatasourceRecord[] = documents.map((_, i) => ({
    ...newDatasource({ datastoreId, type: 'text', name: `doc-${i}` }, now),
    status: 'running',
  }));
  for (const datasource of datasources) await store.createDatasource(datasource);
  const records: ChunkRecord[][] = [];
  for (const [d, list] of pieces.entries()) {
    const datasource = datasources[d] as DatasourceRecord;
    const built = await chunkRecords(datasource, list, () => Promise.resolve());
    records.push(built.map((record) => ({ ...record, vector: vectors.get(record.hash) as Float32Array })));
  }
  const sequences: number[] = [];
  const storeStage = await timedAsync(records, async (list, d) => {
    const change = await store.replaceChunks((datasources[d] as DatasourceRecord).id, list, {
      status: 'synched',
      error: null,
      contentHash: sha256(documents[d] as string),
      nbChunks: list.length,
      nbTokens: list.reduce((sum, record) => sum + record.tokenCount, 0),
      textSize: (documents[d] as string).length,
      lastSynch: now,
      updatedAt: now,
    });
    sequences.push(change.sequence);
  });
  await store.close();

  // Diagnostic: the same writes with SQLite's WAL auto-checkpoint off, to show whether the slow
  // replaceChunks calls are the checkpoints that run inside the commit crossing 1000 WAL pages.
  const noCheckpointDb = new Database(join(dir, 'stage-nockpt.db'));
  const noCheckpoint = sqliteStore({ database: noCheckpointDb });
  noCheckpointDb.pragma('wal_autocheckpoint = 0');
  await noCheckpoint.createDatastore(stageDatastore);
  for (const datasource of datasources) await noCheckpoint.createDatasource(datasource);
  const storeNoCheckpoint = await timedAsync(records, async (list, d) => {
    await noCheckpoint.replaceChunks((datasources[d] as DatasourceRecord).id, list, {
      status: 'synched',
      nbChunks: list.length,
      updatedAt: now,
    });
  });
  await noCheckpoint.close();
  noCheckpointDb.close();

  const index = hnswIndex({ dir: join(dir, 'stage-indexes'), m: M, efConstruction: EF_CONSTRUCTION });
  await index.open(
    { datastoreId, dimensions: embedder.dimensions, model: embedder.model },
    { sequence: async () => 0, entries: async function* () {} },
  );
  const entries: IndexEntry[][] = records.map((list) =>
    list.map((record) => ({ id: record.id, vector: record.vector, datasourceId: record.datasourceId, customId: null })),
  );
  // Timed until the last vector is in its graph (an upsert returns once its vectors are queued).
  const indexStage = await timedAsync(entries, async (list, d) => {
    await index.upsert(datastoreId, list, sequences[d] as number);
    if (d === entries.length - 1) await index.indexed();
  });
  t = performance.now();
  await index.close();
  const indexFlushMs = ms(t);

  // Reference: the same vectors, in order, into a bare hnswlib-node graph.
  const allVectors = entries.flat().map((entry) => entry.vector);
  gc();
  const adds: number[] = [];
  const rawStarted = performance.now();
  const raw = new hnswlib.HierarchicalNSW('cosine', embedder.dimensions);
  raw.initIndex(allVectors.length, M, EF_CONSTRUCTION, 100);
  allVectors.forEach((vector, label) => {
    const a = performance.now();
    raw.addPoint(Array.from(vector), label);
    adds.push(ms(a));
  });
  const rawSeconds = ms(rawStarted) / 1000;
  // Per document, as the index stage calls it, so the two columns compare.
  const perDocRaw: number[] = [];
  let at = 0;
  for (const list of entries) {
    perDocRaw.push(adds.slice(at, at + list.length).reduce((sum, value) => sum + value, 0));
    at += list.length;
  }
  const { longestMs: longestAdd, medianMs: rawMedian } = stage(rawStarted, perDocRaw);

  // Report.
  const rate = (seconds: number, chunks: number) => ({ 'MB/s': mb / seconds, 'chunks/s': chunks / seconds });
  const stageSum = clean.seconds + chunk.seconds + embed.seconds + storeStage.seconds + indexStage.seconds;
  const share = (seconds: number) => `${((100 * seconds) / stageSum).toFixed(0)}%`;
  const rows: Row[] = [
    {
      step: 'end to end: upsert, back to back',
      s: quiet.seconds,
      ...rate(quiet.seconds, quiet.chunks),
      share: '',
      'longest call ms': quiet.longestUpsertMs,
      'median call ms': '',
    },
    {
      step: 'end to end: upsert, yielding between',
      s: spaced.seconds,
      ...rate(spaced.seconds, spaced.chunks),
      share: '',
      'longest call ms': spaced.longestUpsertMs,
      'median call ms': '',
    },
    {
      step: 'end to end: yielding + query / 50 ms',
      s: busy.seconds,
      ...rate(busy.seconds, busy.chunks),
      share: '',
      'longest call ms': busy.longestUpsertMs,
      'median call ms': '',
    },
    {
      step: 'parse/clean: cleanText (per doc)',
      s: clean.seconds,
      ...rate(clean.seconds, chunkCount),
      share: share(clean.seconds),
      'longest call ms': clean.longestMs,
      'median call ms': clean.medianMs,
    },
    {
      step: 'chunk: chunkSections cl100k (per doc)',
      s: chunk.seconds,
      ...rate(chunk.seconds, chunkCount),
      share: share(chunk.seconds),
      'longest call ms': chunk.longestMs,
      'median call ms': chunk.medianMs,
    },
    {
      step: `embed: localEmbeddings (batches of ${embedder.maxBatchSize}, wall)`,
      s: embed.seconds,
      ...rate(embed.seconds, chunkCount),
      share: share(embed.seconds),
      'longest call ms': embed.longestMs,
      'median call ms': embed.medianMs,
    },
    {
      step: '  (same, one doc per call)',
      s: perDocEmbed.seconds,
      ...rate(perDocEmbed.seconds, chunkCount),
      share: '',
      'longest call ms': perDocEmbed.longestMs,
      'median call ms': perDocEmbed.medianMs,
    },
    {
      step: 'store: sqlite replaceChunks (per doc)',
      s: storeStage.seconds,
      ...rate(storeStage.seconds, chunkCount),
      share: share(storeStage.seconds),
      'longest call ms': storeStage.longestMs,
      'median call ms': storeStage.medianMs,
    },
    {
      step: '  (same, WAL auto-checkpoint off)',
      s: storeNoCheckpoint.seconds,
      ...rate(storeNoCheckpoint.seconds, chunkCount),
      share: '',
      'longest call ms': storeNoCheckpoint.longestMs,
      'median call ms': storeNoCheckpoint.medianMs,
    },
    {
      step: 'index: hnswIndex upsert (per doc)',
      s: indexStage.seconds,
      ...rate(indexStage.seconds, chunkCount),
      share: share(indexStage.seconds),
      'longest call ms': indexStage.longestMs,
      'median call ms': indexStage.medianMs,
    },
    { step: 'sum of stages', s: stageSum, ...rate(stageSum, chunkCount), share: '100%', 'longest call ms': '', 'median call ms': '' },
    {
      step: 'reference: raw hnswlib addPoint (per doc)',
      s: rawSeconds,
      ...rate(rawSeconds, allVectors.length),
      share: '',
      'longest call ms': longestAdd,
      'median call ms': rawMedian,
    },
  ];
  printTable(
    `Ingest, ${mb.toFixed(2)} MB, ${documents.length} docs, ${chunkCount} chunks (${textsByHash.size} unique), ${embedder.model}, M ${M} efC ${EF_CONSTRUCTION}`,
    rows,
  );

  const B2B = 'back to back';
  const YIELD = 'yielding';
  const BUSY = 'yielding + queries';
  const stallRows: Row[] = [
    { metric: 'index stage / raw hnswlib build (time)', [B2B]: indexStage.seconds / rawSeconds, [YIELD]: '', [BUSY]: '', goal: '' },
    {
      metric: 'end to end / sum of stages (time)',
      [B2B]: quiet.seconds / stageSum,
      [YIELD]: spaced.seconds / stageSum,
      [BUSY]: busy.seconds / stageSum,
      goal: '',
    },
    {
      metric: 'longest datastore.upsert call ms',
      [B2B]: quiet.longestUpsertMs,
      [YIELD]: spaced.longestUpsertMs,
      [BUSY]: busy.longestUpsertMs,
      goal: '',
    },
    {
      metric: 'event loop delay max ms',
      [B2B]: quiet.loopMaxMs,
      [YIELD]: spaced.loopMaxMs,
      [BUSY]: busy.loopMaxMs,
      goal: `< ${STALL_GOAL_MS}`,
    },
    { metric: 'event loop delay p99 ms', [B2B]: quiet.loopP99Ms, [YIELD]: spaced.loopP99Ms, [BUSY]: busy.loopP99Ms, goal: '' },
    {
      metric: `stalls > ${STALL_GOAL_MS} ms (10 ms tick gaps)`,
      [B2B]: quiet.stallsOverGoal,
      [YIELD]: spaced.stallsOverGoal,
      [BUSY]: busy.stallsOverGoal,
      goal: '0',
    },
    // On a shared machine a stall also holds time the OS gave to other processes; the CPU this
    // process used inside it is what the code controls (equal to the stall on an idle machine).
    {
      metric: 'most CPU ms used inside one stall',
      [B2B]: quiet.busiestStall?.cpuMs ?? 0,
      [YIELD]: spaced.busiestStall?.cpuMs ?? 0,
      [BUSY]: busy.busiestStall?.cpuMs ?? 0,
      goal: `< ${STALL_GOAL_MS}`,
    },
    {
      metric: `stalls with > ${STALL_GOAL_MS} ms CPU`,
      [B2B]: quiet.cpuStallsOverGoal,
      [YIELD]: spaced.cpuStallsOverGoal,
      [BUSY]: busy.cpuStallsOverGoal,
      goal: '0',
    },
    { metric: `queries (one per ${QUERY_INTERVAL_MS} ms slot)`, [B2B]: '', [YIELD]: '', [BUSY]: busy.queries?.count ?? 0, goal: '' },
    { metric: 'query p50 / p99 / max ms (from call)', [B2B]: '', [YIELD]: '', [BUSY]: fmt3(busy.queries?.fromCall), goal: '' },
    {
      metric: 'query p50 / p99 / max ms (from slot)',
      [B2B]: '',
      [YIELD]: '',
      [BUSY]: fmt3(busy.queries?.fromSchedule),
      goal: `max < ${STALL_GOAL_MS}`,
    },
    { metric: 'query slots skipped during stalls', [B2B]: '', [YIELD]: '', [BUSY]: busy.queries?.skippedSlots ?? 0, goal: '0' },
  ];
  printTable('Responsiveness during ingestion (monitorEventLoopDelay resolution 10 ms)', stallRows);

  // The five call kinds that overlapped a stall most, e.g. "embed (document) 84, index.query 1".
  const topCalls = (stall: { calls: readonly { kind: string; ms: number }[] } | null | undefined) =>
    (stall?.calls ?? [])
      .slice(0, 5)
      .map((row) => `${row.kind} ${row.ms.toFixed(0)}`)
      .join(', ');
  const attribution = (run: EndToEnd) => topCalls(run.longestStall);
  printTable('Inside the longest stall (ms of each call kind overlapping it)', [
    { run: B2B, 'stall ms': quiet.longestStall?.ms ?? 0, calls: attribution(quiet) },
    { run: YIELD, 'stall ms': spaced.longestStall?.ms ?? 0, calls: attribution(spaced) },
    { run: BUSY, 'stall ms': busy.longestStall?.ms ?? 0, calls: attribution(busy) },
  ]);
  const busiestCalls = (run: EndToEnd) => topCalls(run.busiestStall);
  printTable('Inside the stall where this process used the most CPU (ms of each call kind overlapping it)', [
    { run: B2B, 'cpu ms': quiet.busiestStall?.cpuMs ?? 0, 'stall ms': quiet.busiestStall?.ms ?? 0, calls: busiestCalls(quiet) },
    { run: YIELD, 'cpu ms': spaced.busiestStall?.cpuMs ?? 0, 'stall ms': spaced.busiestStall?.ms ?? 0, calls: busiestCalls(spaced) },
    { run: BUSY, 'cpu ms': busy.busiestStall?.cpuMs ?? 0, 'stall ms': busy.busiestStall?.ms ?? 0, calls: busiestCalls(busy) },
  ]);
  const shares = (run: EndToEnd) => {
    const total = run.stallTime.reduce((sum, row) => sum + row.ms, 0);
    return run.stallTime
      .slice(0, 5)
      .map((row) => `${row.kind} ${((100 * row.ms) / total).toFixed(0)}%`)
      .join(', ');
  };
  printTable(`Time inside all stalls > ${STALL_GOAL_MS} ms, by call kind`, [
    { run: YIELD, 'stall s': spaced.stallTime.reduce((sum, row) => sum + row.ms, 0) / 1000, calls: shares(spaced) },
    { run: BUSY, 'stall s': busy.stallTime.reduce((sum, row) => sum + row.ms, 0) / 1000, calls: shares(busy) },
  ]);
  printTable(
    'Longest single call of each kind during end to end (ms)',
    Object.keys({ ...quiet.longestCalls, ...spaced.longestCalls, ...busy.longestCalls })
      .sort((a, b) => (busy.longestCalls[b] ?? 0) - (busy.longestCalls[a] ?? 0))
      .slice(0, 10)
      .map((kind) => ({
        call: kind,
        [B2B]: quiet.longestCalls[kind] ?? '',
        [YIELD]: spaced.longestCalls[kind] ?? '',
        [BUSY]: busy.longestCalls[kind] ?? '',
      })),
  );
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  console.log(`\nload average at the end ${load} (other processes on this machine skew absolute figures; ratios less)`);
  console.log(
    `close after quiet run (hnsw flush) ${closeMs.toFixed(0)} ms; reopen + first query ${reopenMs.toFixed(0)} ms; stage index flush ${indexFlushMs.toFixed(0)} ms`,
  );

  writeResult('ingest', {
    parameters: {
      source: corpus.source,
      megabytes: mb,
      documents: documents.length,
      perUpsert: PER_UPSERT,
      docBytes: [MIN_DOC, MAX_DOC],
      chunks: chunkCount,
      uniqueChunks: textsByHash.size,
      embedder: embedder.model,
      dimensions: embedder.dimensions,
      m: M,
      efConstruction: EF_CONSTRUCTION,
      queryIntervalMs: QUERY_INTERVAL_MS,
      stallGoalMs: STALL_GOAL_MS,
    },
    rows,
    responsiveness: stallRows,
    endToEnd: { backToBack: quiet, yielding: spaced, yieldingWhileQuerying: busy, closeMs, reopenFirstQueryMs: reopenMs },
    stages: {
      clean,
      chunk,
      embed,
      perDocEmbed,
      store: storeStage,
      storeWithoutWalCheckpoint: storeNoCheckpoint,
      index: indexStage,
      indexFlushMs,
      raw: { seconds: rawSeconds, longestPerDocMs: longestAdd, medianPerDocMs: rawMedian, longestAddPointMs: Math.max(...adds) },
    },
    loadAverage: loadavg(),
    ratios: { indexOverRaw: indexStage.seconds / rawSeconds, endToEndOverStageSum: quiet.seconds / stageSum },
  });
}

function fmt3(summary: { p50: number; p99: number; max: number } | undefined): string {
  if (!summary) return '';
  return [summary.p50, summary.p99, summary.max].map((value) => value.toFixed(1)).join(' / ');
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => rmSync(dir, { recursive: true, force: true }));
