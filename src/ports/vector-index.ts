import type { RetrievalFilter, ScoredId } from './records.js';
import type { SpecificationVersion } from './specification.js';

/** One vector with the attributes filters need. */
export interface IndexEntry {
  /** Chunk id. */
  id: string;
  vector: Float32Array;
  datasourceId: string;
  customId: string | null;
}

/** A chunk's id and vector: what an index that keeps its graph but not the vectors reloads. */
export interface IndexVector {
  id: string;
  vector: Float32Array;
}

/** A collection is the index of one datastore. */
export interface IndexCollection {
  datastoreId: string;
  dimensions: number;
  /** Embedding model id; a persisted index built with another model is rebuilt. */
  model: string;
}

/** Where an index reloads its content from: the Store, which is the source of truth. */
export interface IndexSource {
  /** The Store's current chunk sequence for the datastore. */
  sequence(): Promise<number>;
  /** Every entry of the datastore, in batches. */
  entries(): AsyncIterable<IndexEntry[]>;
  /**
   * Optional: every entry's id and vector only, in batches, the same set as `entries` (any order).
   * An index that restores vectors into a persisted graph uses it when present: it can be read far
   * more cheaply than whole entries.
   */
  vectors?(): AsyncIterable<readonly IndexVector[]>;
  /**
   * Optional: the vectors of the given entries (ids with no entry are left out). An index whose
   * `open` answers before every vector is back (see `OpenResult.ready`) fetches what its first
   * searches need with it.
   */
  vectorsOf?(ids: readonly string[]): Promise<readonly IndexVector[]>;
}

export interface OpenResult {
  /** True when the collection was (re)built from the source rather than loaded. */
  rebuilt: boolean;
  /** Why it was rebuilt: `missing`, `corrupt`, `stale`, `model_changed`, `in_memory`. */
  reason?: string;
  /**
   * Set when `open` answered while the collection was still loading: queries are served at once,
   * and this resolves once loading is over, with what it came to (a rebuild when the store and the
   * persisted files turned out not to match). Until then the caller must not change the
   * datastore's chunks in the store (the index is still reading them); the index's own writes
   * wait for it too. It rejects only when the collection could neither load nor be rebuilt.
   */
  ready?: Promise<OpenResult>;
}

export interface IndexQuery {
  vector: Float32Array;
  /** How many hits at most. Filtered queries still return `topK` hits when that many match. */
  topK: number;
  filter?: RetrievalFilter;
}

/**
 * Approximate (or exact) nearest-neighbour search over chunk vectors, one collection per datastore.
 * Scores are cosine similarities: higher is better, 1 for identical direction.
 *
 * The Store is the source of truth: the index may be rebuilt from it at any time, and `open`
 * must rebuild when the persisted state is missing, corrupt, written for another model or
 * dimensions, or older than the store's chunk sequence.
 *
 * Calls for one collection are made one at a time by the core (writes are serialised per datastore).
 */
export interface VectorIndex {
  /** Adapter name, e.g. `hnsw`. */
  readonly name: string;
  /** The port contract this adapter implements; `createRagdesk` accepts only `'v1'`. */
  readonly specificationVersion: SpecificationVersion;
  /** Loads or builds the collection; must be called before other calls for that datastore. Idempotent. */
  open(collection: IndexCollection, source: IndexSource): Promise<OpenResult>;
  /** Adds or replaces entries, then records `sequence` as the store state the index reflects. */
  upsert(datastoreId: string, entries: readonly IndexEntry[], sequence: number): Promise<void>;
  /** Removes entries (unknown ids are ignored), then records `sequence`. */
  remove(datastoreId: string, ids: readonly string[], sequence: number): Promise<void>;
  /** Nearest entries, best first. */
  query(datastoreId: string, query: IndexQuery): Promise<ScoredId[]>;
  /**
   * Optional: the cosine similarity of `vector` with each of these entries, from the vectors the
   * index holds (any order). Ids it cannot answer for are left out: unknown ids, entries whose
   * vector it does not hold at this moment (still loading, or being changed), and every id of a
   * collection that is not open. Search hits the vector side did not return (lexical hits) are
   * scored with it, the rest from the Store's vectors; without it, all from the Store's.
   */
  similarities?(datastoreId: string, vector: Float32Array, ids: readonly string[]): Promise<ScoredId[]>;
  /** Live (not deleted) entries. */
  count(datastoreId: string): Promise<number>;
  /** Persists pending changes of one collection, or of all when no id is given. No-op in memory. */
  flush(datastoreId?: string): Promise<void>;
  /** Deletes the collection and its files. */
  drop(datastoreId: string): Promise<void>;
  /** Flushes and releases every collection. Idempotent. */
  close(): Promise<void>;
}
