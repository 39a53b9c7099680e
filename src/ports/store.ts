import type {
  ChunkRecord,
  DatasourceRecord,
  DatasourceRef,
  DatasourceStatus,
  DatastoreRecord,
  JobRecord,
  JobStatus,
  RetrievalFilter,
  ScoredId,
  StatusEvent,
} from './records.js';
import type { AgentRecord, ApiKeyRecord, ConversationRecord, MessageRecord, UsageConsumption } from './agent-records.js';

/** Fields of a datastore that may change after creation. */
export type DatastorePatch = Partial<
  Pick<DatastoreRecord, 'name' | 'description' | 'embeddingModel' | 'embeddingDimensions' | 'updatedAt'>
>;

/** Fields of a datasource that may change after creation. */
export type DatasourcePatch = Partial<Omit<DatasourceRecord, 'id' | 'datastoreId' | 'type' | 'createdAt'>>;

/** Fields of an agent that may change after creation. */
export type AgentPatch = Partial<Omit<AgentRecord, 'id' | 'ownerId' | 'createdAt'>>;

/** Fields of an API key that may change after creation. */
export type ApiKeyPatch = Partial<Pick<ApiKeyRecord, 'name' | 'lastUsedAt' | 'revokedAt'>>;

/** An uploaded file kept with its datasource. */
export interface StoredFile {
  bytes: Uint8Array;
  mimeType: string;
  fileName: string | null;
}

/** Fields of a job that may change after creation. */
export type JobPatch = Partial<Omit<JobRecord, 'id' | 'kind' | 'datastoreId' | 'datasourceId' | 'createdAt'>>;

/** A lease request: take one due job for `owner` until `leaseUntil`. */
export interface JobClaim {
  owner: string;
  /** Current time (ISO); jobs with `runAt` after it are not due. */
  now: string;
  leaseUntil: string;
}

/** One new document for `Store.createDocuments`. */
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

/** Lexical (full-text) search request. */
export interface TextSearchRequest {
  datastoreId: string;
  /** Raw user text. Adapters must accept any string (punctuation, quotes, FTS operators) without throwing. */
  query: string;
  topK: number;
  filter?: RetrievalFilter;
}

/**
 * Durable records: the source of truth. Every method is atomic on its own (it either happens whole
 * or not at all); there is deliberately no generic transaction, because better-sqlite3 transactions
 * are synchronous and cannot span awaits.
 *
 * Getters return `null` (never throw) for unknown ids; creators throw `RagdeskError('conflict')`
 * on a duplicate id. Returned records are copies: mutating them does not change the store.
 */
export interface Store {
  /** Adapter name for logs and errors, e.g. `sqlite`. */
  readonly name: string;

  /** Inserts a datastore. Throws `conflict` when the id exists. */
  createDatastore(record: DatastoreRecord): Promise<void>;
  getDatastore(id: string): Promise<DatastoreRecord | null>;
  /** All datastores, oldest first; with `ownerId`, only that owner's. */
  listDatastores(filter?: { ownerId?: string }): Promise<DatastoreRecord[]>;
  /** Applies the patch; returns the updated record, or null when the id is unknown. */
  updateDatastore(id: string, patch: DatastorePatch): Promise<DatastoreRecord | null>;
  /** Deletes the datastore with its datasources and chunks. Returns false when the id is unknown. */
  deleteDatastore(id: string): Promise<boolean>;

  /** Inserts a datasource. Throws `conflict` on a duplicate id, `not_found` when its datastore is unknown. */
  createDatasource(record: DatasourceRecord): Promise<void>;
  getDatasource(id: string): Promise<DatasourceRecord | null>;
  /** The datasources with these ids, in the order of `ids`; unknown ids are skipped. One round trip. */
  getDatasources(ids: readonly string[]): Promise<DatasourceRecord[]>;
  /**
   * Optional: the citation fields of these datasources, in the order of `ids`; unknown ids are
   * skipped. Search hits and agent sources read these for every query; a store that can read fewer
   * columns than `getDatasources` should offer it (SQLite: all 17 columns cost ~40% more than five).
   * Without it the core calls `getDatasources`.
   */
  getDatasourceRefs?(ids: readonly string[]): Promise<DatasourceRef[]>;
  /**
   * Datasources of a datastore, oldest first; with `groupId`, only the children of that group; with
   * `statuses`, only those in one of them (the start-up check for interrupted work reads the few
   * unsettled records, not every document: 100k one-chunk documents took seconds to list).
   */
  listDatasources(datastoreId: string, options?: { groupId?: string; statuses?: readonly DatasourceStatus[] }): Promise<DatasourceRecord[]>;
  /**
   * Applies the patch; returns the updated record, or null when the id is unknown. When the patch
   * changes `status`, a `StatusEvent` (message = patch `error` or null) is appended in the same step;
   * `replaceChunks` does the same for its `datasourcePatch`.
   */
  updateDatasource(id: string, patch: DatasourcePatch): Promise<DatasourceRecord | null>;
  /**
   * Compare-and-set of a datasource's status: applies `patch` (which should set `status`) only if
   * the current status is one of `expected`. Returns the updated record, or null when the id is
   * unknown or the status did not match (another worker moved it first).
   */
  transitionDatasource(
    id: string,
    expected: readonly DatasourceRecord['status'][],
    patch: DatasourcePatch,
  ): Promise<DatasourceRecord | null>;
  /** Status changes of a datasource, oldest first. */
  listStatusEvents(datasourceId: string): Promise<StatusEvent[]>;
  /**
   * Deletes a datasource with its chunks, stored file, jobs and status events in one step. Returns the chunk change (sequence bumped),
   * or null when the id is unknown. Children (`groupId` = id) are not touched: the core deletes them.
   */
  deleteDatasource(id: string): Promise<ChunkChange | null>;

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
  /** Chunks of one datasource ordered by `position`. */
  listChunks(datasourceId: string): Promise<ChunkRecord[]>;
  /** Every chunk of a datastore, in batches, for rebuilding an index. Order is stable but unspecified. */
  iterateChunks(datastoreId: string, options?: { batchSize?: number }): AsyncIterable<ChunkRecord[]>;
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

  /**
   * Keeps the uploaded bytes of a `file` datasource so its sync job can run (again) after a
   * restart. Replaces an earlier file of the same datasource. Throws `not_found` for an unknown id.
   */
  putDatasourceFile(datasourceId: string, file: StoredFile): Promise<void>;
  /** The stored upload of a datasource, or null. */
  getDatasourceFile(datasourceId: string): Promise<StoredFile | null>;

  /** Inserts a job. Throws `conflict` on a duplicate id, `not_found` when its datasource is unknown. */
  createJob(job: JobRecord): Promise<void>;
  getJob(id: string): Promise<JobRecord | null>;
  /** Jobs matching every given criterion, oldest first. */
  listJobs(filter: { datasourceId?: string; statuses?: readonly JobStatus[] }): Promise<JobRecord[]>;
  /**
   * Atomically takes the oldest (first created) due job — `pending` with `runAt <= now`, or
   * `running` with an expired or missing lease (`leaseUntil <= now` or null: its worker died) —
   * marks it `running` for `owner` until `leaseUntil` and increments `attempts`. Two concurrent
   * claims never return the same job. Null when none is due.
   */
  claimJob(claim: JobClaim): Promise<JobRecord | null>;
  /** Applies the patch; returns the updated record, or null when the id is unknown. */
  updateJob(id: string, patch: JobPatch): Promise<JobRecord | null>;

  /**
   * Full-text search over chunk text (bm25 or the engine's equivalent), best first, at most `topK`.
   * Scores are positive and higher is better; they are comparable only within one call.
   */
  searchText(request: TextSearchRequest): Promise<ScoredId[]>;

  /** Inserts an agent. Throws `conflict` on a duplicate id. Datastore ids are not checked here (the core does). */
  createAgent(record: AgentRecord): Promise<void>;
  getAgent(id: string): Promise<AgentRecord | null>;
  /** Agents oldest first; with `ownerId`, only that owner's. */
  listAgents(filter?: { ownerId?: string }): Promise<AgentRecord[]>;
  /** Applies the patch; returns the updated record, or null when the id is unknown. */
  updateAgent(id: string, patch: AgentPatch): Promise<AgentRecord | null>;
  /** Deletes the agent with its conversations and their messages in one step; false when unknown. */
  deleteAgent(id: string): Promise<boolean>;

  /** Inserts a conversation. Throws `conflict` on a duplicate id, `not_found` when its agent is unknown. */
  createConversation(record: ConversationRecord): Promise<void>;
  getConversation(id: string): Promise<ConversationRecord | null>;
  /** Conversations of an agent, oldest first. */
  listConversations(agentId: string): Promise<ConversationRecord[]>;
  /**
   * Appends messages to a conversation and sets its `updatedAt` to the last message's `createdAt`,
   * all in one step (a question and its answer land together or not at all). Throws `not_found`
   * when the conversation is unknown and `conflict` on a duplicate message id.
   */
  appendMessages(conversationId: string, messages: readonly MessageRecord[]): Promise<void>;
  /**
   * The most recent messages of a conversation, newest first (ties broken by insertion order,
   * later first), at most `limit` (all when omitted).
   */
  listMessages(conversationId: string, options?: { limit?: number }): Promise<MessageRecord[]>;

  /** Inserts an API key record. Throws `conflict` on a duplicate id or hash. */
  createApiKey(record: ApiKeyRecord): Promise<void>;
  /**
   * The key with this id, or null (revoked keys included: the caller checks `revokedAt`). This is
   * how a presented secret is verified: the secret carries its key id, the record's salted digest
   * is then compared in constant time by the caller, never by the Store.
   */
  getApiKey(id: string): Promise<ApiKeyRecord | null>;
  /**
   * The key whose `hash` matches exactly (revoked keys included). Used for keys created before the
   * secret carried its id (stored as plain SHA-256 hex) and to detect duplicates when copying stores.
   */
  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | null>;
  /** Keys oldest first (revoked included); with `ownerId`, only that owner's. */
  listApiKeys(filter?: { ownerId?: string }): Promise<ApiKeyRecord[]>;
  /** Applies the patch; returns the updated record, or null when the id is unknown. */
  updateApiKey(id: string, patch: ApiKeyPatch): Promise<ApiKeyRecord | null>;

  /**
   * Atomically adds `amount` to a usage counter unless that would exceed `limit`. Returns whether
   * it was added and the counter's value afterwards (unchanged when refused). Counters start at 0.
   */
  consumeUsage(request: UsageConsumption): Promise<{ allowed: boolean; used: number }>;

  /** Releases connections and file handles. Further calls throw `closed`. Idempotent. */
  close(): Promise<void>;
}
