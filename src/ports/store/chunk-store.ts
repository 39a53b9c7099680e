import type { ChunkRecord, DatasourceRecord, DatasourceRef } from '../records.js';
import type { DatasourcePatch, StorePage } from './datasource-store.js';
import type { IndexVector } from '../vector-index.js';

/** One new document for `ChunkStore.createDocuments`. */
export interface NewDocument {
  datasource: DatasourceRecord;
  chunks: readonly ChunkRecord[];
  patch: DatasourcePatch;
}

/** What `replaceChunks` and `deleteDatasource` changed, so the caller can update the vector index. */
export interface ChunkChange {
  /** Ids of chunks that no longer exist. */
  removedIds: string[];
  /** Ids of chunks that exist now and did not before the call. */
  addedIds: string[];
  /** The datastore's chunk sequence after the change (see `Store.chunkSequence`). */
  sequence: number;
}

/** A page of a datasource's chunks in `listChunks` order (`position`). */
export interface ChunkPageQuery {
  offset: number;
  limit: number;
  /** Keep the chunks whose text contains it, ignoring case (as `DatasourcePageQuery.nameContains`). */
  textContains?: string;
}

/** Chunks, their stored vectors and the chunk sequence (Store conformance: `chunks`). */
export interface ChunkStore {
  /**
   * Atomically makes `chunks` the complete chunk set of the datasource (rows with a listed id are
   * overwritten, rows not listed are removed) and applies `datasourcePatch` in the same step. The
   * caller derives ids from content, so `addedIds` / `removedIds` tell exactly which vectors the
   * index must change. Bumps the datastore's chunk sequence. Throws `not_found` when the datasource
   * is unknown and `invalid_request` when a chunk names another datasource or datastore.
   */
  replaceChunks(datasourceId: string, chunks: readonly ChunkRecord[], datasourcePatch?: DatasourcePatch): Promise<ChunkChange>;
  /**
   * Optional: several new documents in one atomic step, each as `createDatasource(datasource)`
   * followed by `replaceChunks(datasource.id, chunks, patch)` (same status events, same errors),
   * all or nothing. Returns the union of the changes, with the sequence after the last one. An
   * upsert of many small documents otherwise pays a transaction per call: SQLite spent ~1 ms per
   * one-chunk document on them. Without it the core makes the two calls per document.
   */
  createDocuments?(documents: readonly NewDocument[]): Promise<ChunkChange>;
  /**
   * The chunks with these ids, in the order of `ids`; unknown ids are skipped. With
   * `{ vectors: false }` the adapter may leave each `vector` empty (length 0) instead of reading
   * it: turning search hits into fragments needs text and metadata only, and copying ten stored
   * vectors was a measurable share of a query.
   */
  getChunks(ids: readonly string[], options?: { vectors?: boolean }): Promise<ChunkRecord[]>;
  /**
   * Optional: `getChunks(ids, { vectors: false })` and the citation fields of those chunks'
   * datasources (distinct, any order) in one read. Search hits use it when present: on SQLite at
   * 100k chunks, one joined statement instead of two cut a fifth of the row-fetch time of a query.
   */
  getChunkHits?(ids: readonly string[]): Promise<{ chunks: ChunkRecord[]; datasources: DatasourceRef[] }>;
  /** Chunks of one datasource ordered by `position`. */
  listChunks(datasourceId: string): Promise<ChunkRecord[]>;
  /**
   * Optional: one page of `listChunks(datasourceId)` after the text filter, and the number that
   * match; a chunk's `vector` may be empty (length 0), the page is for reading. Without it the core
   * reads every chunk of the datasource for one page (20,000 rows with their vectors for 50).
   * An unknown datasource is an empty page.
   */
  pageChunks?(datasourceId: string, query: ChunkPageQuery): Promise<StorePage<ChunkRecord>>;
  /** Every chunk of a datastore, in batches, for rebuilding an index. Order is stable but unspecified. */
  iterateChunks(datastoreId: string, options?: { batchSize?: number }): AsyncIterable<ChunkRecord[]>;
  /**
   * Optional: the id and vector of every chunk of a datastore, in batches (each chunk once, any
   * order). Reopening a vector index that keeps its graph but not the vectors reads them back;
   * through `iterateChunks` that read built every chunk's text and metadata too, 40% of the CPU
   * of reopening 20k chunks on SQLite. The vectors may be views of one buffer per batch: read
   * them, do not keep them. Without it the core uses `iterateChunks`.
   */
  iterateChunkVectors?(datastoreId: string, options?: { batchSize?: number }): AsyncIterable<IndexVector[]>;
  /**
   * Optional: the id and vector of these chunks of a datastore (unknown ids skipped, any order). A
   * vector index answering queries while it still reloads its vectors fetches the few its first
   * searches reach (a few thousand at 100k chunks); through `getChunks` each came with its text and
   * metadata, four fifths of that fetch on SQLite. Without it the core uses `getChunks`.
   */
  getChunkVectors?(datastoreId: string, ids: readonly string[]): Promise<IndexVector[]>;
  countChunks(datastoreId: string): Promise<number>;
  /**
   * Vectors already stored in the datastore for these chunk hashes (any datasource), so unchanged
   * text is never embedded twice. Only vectors of `dimensions` length are returned.
   */
  findVectorsByHash(datastoreId: string, hashes: readonly string[], dimensions: number): Promise<Map<string, Float32Array>>;
  /**
   * Monotonic counter of chunk changes in a datastore: every `replaceChunks` and `deleteDatasource`
   * raises it. A vector index records the sequence it reflects, so a stale index is detected on open.
   * 0 for a datastore with no change yet.
   */
  chunkSequence(datastoreId: string): Promise<number>;
}
