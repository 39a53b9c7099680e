import type { AgentStore } from './store/agent-store.js';
import type { ApiKeyStore } from './store/api-key-store.js';
import type { ChunkStore } from './store/chunk-store.js';
import type { ConversationStore } from './store/conversation-store.js';
import type { CrawlStore } from './store/crawl-store.js';
import type { DatasourceStore } from './store/datasource-store.js';
import type { DatastoreStore } from './store/datastore-store.js';
import type { JobStore } from './store/job-store.js';
import type { TextSearchStore } from './store/text-search-store.js';
import type { UsageStore } from './store/usage-store.js';
import type { UploadStore } from './store/upload-store.js';
import type { SpecificationVersion } from './specification.js';

export type { DatastorePatch, DatastoreStore } from './store/datastore-store.js';
export type { DatasourcePageQuery, DatasourcePatch, DatasourceStore, StorePage, StoredFile } from './store/datasource-store.js';
export type { ChunkChange, ChunkPageQuery, ChunkStore, NewDocument } from './store/chunk-store.js';
export type { TextSearchLists, TextSearchRequest, TextSearchStore } from './store/text-search-store.js';
export type { JobClaim, JobPatch, JobStore } from './store/job-store.js';
export type { AgentPatch, AgentStore } from './store/agent-store.js';
export type { ConversationFilter, ConversationStore } from './store/conversation-store.js';
export type { ApiKeyPatch, ApiKeyStore } from './store/api-key-store.js';
export type { UsageStore } from './store/usage-store.js';
export type { UploadRecord, UploadStore } from './store/upload-store.js';
export type {
  CrawlCounts,
  CrawlPageRecord,
  CrawlPageStatus,
  CrawlResult,
  CrawlSkips,
  CrawlState,
  CrawlStore,
} from './store/crawl-store.js';

/** What every Store has besides its records: a name, the contract version, and `close`. */
export interface StoreLifecycle {
  /** Adapter name for logs and errors, e.g. `sqlite`. */
  readonly name: string;
  /** The port contract this adapter implements; `createRagdesk` accepts only `'v1'`. */
  readonly specificationVersion: SpecificationVersion;
  /** Releases connections and file handles. Further calls throw `closed`. Idempotent. */
  close(): Promise<void>;
}

/**
 * Durable records: the source of truth, in two ports. Every method is atomic on its own (it either
 * happens whole or not at all); there is deliberately no generic transaction, because
 * better-sqlite3 transactions are synchronous and cannot span awaits.
 *
 * Getters return `null` (never throw) for unknown ids; creators throw `RagdeskError('conflict')`
 * on a duplicate id. Returned records are copies: mutating them does not change the store.
 *
 * Each port is composed of parts, one per kind of record, so an adapter can be written (and read)
 * part by part; `createRagdesk` checks every required method of every part. The conformance suites
 * (`describeRetrievalStoreConformance`, `describeAccountStoreConformance`) follow the same parts.
 */

/**
 * What retrieval reads and writes: datastores, datasources with their status history and stored
 * uploads, sync jobs, chunks with their vectors, lexical search over chunk text, and the crawls of
 * web datasources.
 */
export interface RetrievalStore
  extends StoreLifecycle, DatastoreStore, DatasourceStore, ChunkStore, TextSearchStore, JobStore, CrawlStore {}

/**
 * What agents and their callers keep: agents, conversations and messages (feedback included), API
 * keys, usage counters and chat upload links. It holds no datastore: an agent names datastore ids,
 * and the core checks them against the retrieval store.
 */
export interface AccountStore extends StoreLifecycle, AgentStore, ConversationStore, ApiKeyStore, UsageStore, UploadStore {}

/** Both stores of one installation, as the adapters' one-call constructors return them. */
export interface StorePair {
  retrieval: RetrievalStore;
  accounts: AccountStore;
}

/**
 * Both ports in one object.
 *
 * @deprecated Pass `retrieval` and `accounts` to `createRagdesk` instead; a `Store` is still
 * accepted as `store` (it serves as both) until the next minor version.
 */
export interface Store extends RetrievalStore, AccountStore {}
