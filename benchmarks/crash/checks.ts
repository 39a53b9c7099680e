/**
 * What must hold for a data directory after a crash, checked through the ports (Store and
 * VectorIndex) and, for the file itself, through SQLite directly. Every check returns failures as
 * readable strings; an empty list means the directory is consistent.
 */
import { existsSync, readdirSync } from 'node:fs';
import Database from 'better-sqlite3';
import { collectionDirectory } from '../../adapters/hnsw/files/persistence.js';
import type { OpenResult, RetrievalStore, VectorIndex } from '../../src/ports/index.js';
import type { DatasourceRecord } from '../../src/ports/records.js';
import { indexSource } from '../../src/datastores/index-source.js';

/** Collections up to this size are checked by asking for every chunk (see the exact-vector check). */
const WALK_ALL_UP_TO = 5_000;

/** `PRAGMA integrity_check` and `foreign_key_check` on the database file (the WAL is replayed by opening it). */
export function checkDatabaseFile(path: string): string[] {
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { fileMustExist: true });
    const failures: string[] = [];
    const integrity = db.prepare('PRAGMA integrity_check').pluck().all() as string[];
    if (integrity.length !== 1 || integrity[0] !== 'ok') failures.push(`integrity_check: ${integrity.slice(0, 5).join('; ')}`);
    const orphans = db.prepare('PRAGMA foreign_key_check').all();
    if (orphans.length > 0)
      failures.push(`foreign_key_check: ${orphans.length} row(s) point at missing parents, e.g. ${JSON.stringify(orphans[0])}`);
    return failures;
  } catch (error) {
    return [`database file unreadable: ${error instanceof Error ? error.message : String(error)}`];
  } finally {
    db?.close();
  }
}

export interface ConsistencyReport {
  failures: string[];
  /** How each collection was opened: loaded from its files, or rebuilt and why. */
  opens: { datastoreId: string; result: OpenResult }[];
  datastores: number;
  datasources: number;
  chunks: number;
  /** Datasources by status. */
  statuses: Record<string, number>;
}

/**
 * Opens every collection the way the core does (the Store is the source of truth for a rebuild)
 * and checks that store and index agree and that records are not duplicated. With `settled`, also
 * that no work is left: no job pending or running, no datasource pending or running, and the
 * counters of each datasource match its chunks.
 */
export async function checkConsistency(
  store: RetrievalStore,
  index: VectorIndex,
  options: { settled: boolean },
): Promise<ConsistencyReport> {
  const report: ConsistencyReport = { failures: [], opens: [], datastores: 0, datasources: 0, chunks: 0, statuses: {} };
  const fail = (message: string) => report.failures.push(message);
  for (const datastore of await store.listDatastores()) {
    report.datastores++;
    // The way the core opens it, then what loading came to (an index may answer before its load is over).
    const opened = await index.open(
      { datastoreId: datastore.id, dimensions: datastore.embeddingDimensions, model: datastore.embeddingModel },
      indexSource(store, datastore.id),
    );
    const result = opened.ready ? await opened.ready : opened;
    report.opens.push({ datastoreId: datastore.id, result });
    const sources = await store.listDatasources(datastore.id);
    report.datasources += sources.length;
    const chunksPerSource = await checkChunksAgainstIndex(store, index, datastore.id, sources, fail, report);
    checkSources(sources, chunksPerSource, fail, report, options.settled);
  }
  if (options.settled) {
    const open = await store.listJobs({ statuses: ['pending', 'running'] });
    if (open.length > 0) fail(`${open.length} job(s) still ${open.map((job) => job.status).join(', ')} after settling`);
  }
  return report;
}

async function checkChunksAgainstIndex(
  store: RetrievalStore,
  index: VectorIndex,
  datastoreId: string,
  sources: readonly DatasourceRecord[],
  fail: (message: string) => void,
  report: ConsistencyReport,
): Promise<Map<string, number>> {
  const chunks = [];
  for await (const batch of store.iterateChunks(datastoreId)) chunks.push(...batch);
  report.chunks += chunks.length;
  const counted = await store.countChunks(datastoreId);
  if (counted !== chunks.length) fail(`${datastoreId}: countChunks ${counted} but ${chunks.length} iterated`);
  const indexed = await index.count(datastoreId);
  if (indexed !== chunks.length) fail(`${datastoreId}: index holds ${indexed} vectors, store ${chunks.length} chunks`);

  const ids = new Set<string>();
  const positions = new Set<string>();
  const byHash = new Map<string, number>();
  const known = new Set(sources.map((source) => source.id));
  for (const chunk of chunks) {
    if (ids.has(chunk.id)) fail(`${datastoreId}: chunk id ${chunk.id} appears twice`);
    ids.add(chunk.id);
    const slot = `${chunk.datasourceId}#${chunk.position}`;
    if (positions.has(slot)) fail(`${datastoreId}: two chunks at position ${chunk.position} of datasource ${chunk.datasourceId}`);
    positions.add(slot);
    if (!known.has(chunk.datasourceId)) fail(`${datastoreId}: chunk ${chunk.id} of unknown datasource ${chunk.datasourceId}`);
    byHash.set(chunk.hash, (byHash.get(chunk.hash) ?? 0) + 1);
  }
  // Every chunk is found by its own vector (identical vectors tie, hence the margin), and
  // everything the index returns is a chunk.
  const seen = new Set<string>();
  let missing = 0;
  for (const chunk of chunks) {
    // What is checked is that every chunk is reachable, not the graph's recall: near-duplicate texts
    // crowd one region, where a walk as wide as a normal query can miss a chunk that is there (1 of
    // 477 with a margin of 50, in a backup taken while writing). Small collections are asked for
    // all of their chunks (the walk then visits every reachable point); big ones for a wide margin.
    const everything = chunks.length <= WALK_ALL_UP_TO;
    const topK = everything ? Math.max(1, chunks.length) : Math.min(chunks.length, (byHash.get(chunk.hash) ?? 1) + 50);
    const hits = await index.query(datastoreId, { vector: chunk.vector, topK });
    for (const hit of hits) seen.add(hit.id);
    if (!hits.some((hit) => hit.id === chunk.id)) missing++;
  }
  if (missing > 0) fail(`${datastoreId}: ${missing} of ${chunks.length} chunk(s) not found by an exact-vector query`);
  const strangers = [...seen].filter((id) => !ids.has(id));
  if (strangers.length > 0) fail(`${datastoreId}: the index returned ${strangers.length} id(s) that are not chunks, e.g. ${strangers[0]}`);
  const perSource = new Map<string, number>();
  for (const chunk of chunks) perSource.set(chunk.datasourceId, (perSource.get(chunk.datasourceId) ?? 0) + 1);
  return perSource;
}

function checkSources(
  sources: readonly DatasourceRecord[],
  chunksPerSource: ReadonlyMap<string, number>,
  fail: (message: string) => void,
  report: ConsistencyReport,
  settled: boolean,
): void {
  const pages = new Set<string>();
  for (const source of sources) {
    report.statuses[source.status] = (report.statuses[source.status] ?? 0) + 1;
    const actual = chunksPerSource.get(source.id) ?? 0;
    if (source.groupId) {
      const key = `${source.groupId} ${String(source.config.source_url)}`;
      if (pages.has(key)) fail(`site ${source.groupId} holds page ${String(source.config.source_url)} twice`);
      pages.add(key);
    }
    // replaceChunks writes the chunks and the counters in one step, so they agree even mid-sync.
    if (source.type !== 'web_site' && source.nbChunks !== actual) {
      fail(`datasource ${source.id} (${source.type}, ${source.status}) says ${source.nbChunks} chunks, has ${actual}`);
    }
    if (!settled) continue;
    if (source.status === 'pending' || source.status === 'running')
      fail(`datasource ${source.id} (${source.type}) stuck in ${source.status}`);
  }
}

/** Index directories under `indexesDir` that belong to no datastore (files nothing would ever remove). */
export function strayIndexDirectories(indexesDir: string, datastoreIds: readonly string[]): string[] {
  if (!existsSync(indexesDir)) return [];
  const expected = new Set(datastoreIds.map((id) => collectionDirectory(indexesDir, id).slice(indexesDir.length + 1)));
  return readdirSync(indexesDir).filter((name) => !expected.has(name));
}
