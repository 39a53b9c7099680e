/**
 * Records the Store persists. Plain data: no methods, no adapter-specific fields.
 * Timestamps are ISO-8601 strings in UTC.
 */

/** Free-form metadata value. Flat on purpose: nested objects are rejected at the edges. */
export type MetadataValue = string | number | boolean | null;

/** Flat key/value metadata (The API's "Document" uses `source`, `author`, `date`). */
export type Metadata = Record<string, MetadataValue>;

export interface DatastoreRecord {
  id: string;
  /** Who owns the datastore (API keys of this owner see it); null for single-tenant library use. */
  ownerId: string | null;
  name: string;
  description: string;
  /** Id of the embedding model the chunks of this datastore were embedded with. */
  embeddingModel: string;
  /** Vector length of that model; every chunk vector has exactly this length. */
  embeddingDimensions: number;
  createdAt: string;
  updatedAt: string;
}

/** The datasource kinds. `text` is what `Datastore.upsert` creates for each document. */
export type DatasourceType = 'file' | 'text' | 'web_page' | 'web_site';

/** The API's "States and transitions". */
export type DatasourceStatus = 'unsynched' | 'pending' | 'running' | 'synched' | 'error' | 'usage_limit_reached';

export interface DatasourceRecord {
  id: string;
  datastoreId: string;
  type: DatasourceType;
  name: string;
  status: DatasourceStatus;
  /** Parent datasource (e.g. the `web_site` a `web_page` was discovered from); null when top level. */
  groupId: string | null;
  /** Tenant id for multi-tenant filtering (the API's `custom_id`). */
  customId: string | null;
  /** Type-specific configuration (`source_url`, `sitemap`, ...). JSON-serialisable. */
  config: Record<string, unknown>;
  /** Document metadata (The API's "Document" `metadata`). */
  metadata: Metadata;
  /** Human-readable failure when `status` is `error` or `usage_limit_reached`. */
  error: string | null;
  /** Hash of the loaded text the current chunks came from; null before the first sync. */
  contentHash: string | null;
  nbChunks: number;
  nbTokens: number;
  /** Length in characters of the loaded text. */
  textSize: number;
  createdAt: string;
  updatedAt: string;
  lastSynch: string | null;
}

/** What citing a chunk needs of its datasource: read for every search hit. */
export type DatasourceRef = Pick<DatasourceRecord, 'id' | 'type' | 'name' | 'config' | 'metadata'>;

export interface ChunkRecord {
  id: string;
  datastoreId: string;
  datasourceId: string;
  /** Copy of the owning datasource's `customId`, so filters need no join. */
  customId: string | null;
  /** 0-based order of the chunk within its datasource. */
  position: number;
  text: string;
  tokenCount: number;
  /** Character offset of the chunk's first character in the loaded text. */
  charOffset: number;
  /** Content hash of `text`; equal hashes mean an embedding can be reused. */
  hash: string;
  /** 1-based page (PDF) or slide number when the loader knows it. */
  pageNumber: number | null;
  metadata: Metadata;
  /** The embedding, kept in the Store so the vector index can always be rebuilt. */
  vector: Float32Array;
}

/** What a search hit needs of its chunk to become a fragment (`ChunkStore.getChunkHits`). */
export type ChunkHit = Pick<ChunkRecord, 'id' | 'datasourceId' | 'customId' | 'text' | 'pageNumber' | 'metadata'>;

/** Restricts retrieval. An absent or empty list places no restriction; both lists must hold when both are given. */
export interface RetrievalFilter {
  /** Match chunks owned by any of these datasources (exact ids; the core expands groups before calling a port). */
  datasourceIds?: readonly string[];
  /** Match chunks whose datasource carries any of these custom ids. */
  customIds?: readonly string[];
}

/**
 * A condition on a document's metadata (`filters.metadata`). A leaf names one `key` and one test;
 * `and` / `or` / `not` combine them. Ranges compare numbers with numbers and strings with strings
 * (by code point, which orders ISO-8601 UTC dates in time); a value of another type never matches.
 */
export type MetadataFilter =
  | { key: string; eq: MetadataValue }
  | { key: string; in: readonly MetadataValue[] }
  | { key: string; exists: boolean }
  | { key: string; gt?: number | string; gte?: number | string; lt?: number | string; lte?: number | string }
  | { and: readonly MetadataFilter[] }
  | { or: readonly MetadataFilter[] }
  | { not: MetadataFilter };

/** A scored reference to a chunk. Higher `score` is better. */
export interface ScoredId {
  id: string;
  score: number;
}

/** A job's lifecycle. `pending` jobs wait for `runAt`; `running` jobs hold a lease until `leaseUntil`. */
export type JobStatus = 'pending' | 'running' | 'done' | 'failed' | 'cancelled';

/** A persisted unit of background work (a datasource sync), so work survives restarts. */
export interface JobRecord {
  id: string;
  /**
   * What to do; `sync` loads, chunks, embeds and stores one datasource; `refresh` does the same on
   * a web datasource's schedule (asking for its pages conditionally), only if it is not syncing.
   */
  kind: 'sync' | 'refresh';
  datastoreId: string;
  datasourceId: string;
  status: JobStatus;
  /** Attempts started so far (a resumed or retried job counts again). */
  attempts: number;
  /** Earliest time the job may (re)start: set in the future for a retry with backoff. */
  runAt: string;
  /** Who holds the job while `running` (process id / worker id) and until when. */
  leaseOwner: string | null;
  leaseUntil: string | null;
  /** Last failure, for the datasource's `error` and for logs. */
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One persisted status change of a datasource (The API's "States and transitions"). */
export interface StatusEvent {
  datasourceId: string;
  from: DatasourceStatus | null;
  to: DatasourceStatus;
  at: string;
  /** Error message or reason, when there is one. */
  message: string | null;
}
