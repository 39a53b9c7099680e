import { RagdeskContext, type ChunkingOptions } from './context.js';
import { DatasourceService } from './datasources/datasource-service.js';
import { DatastoreService } from './datastores/datastore-service.js';
import { AgentService } from './agents/agent-service.js';
import { resolveAgentOptions, type AgentOptionsInput } from './agents/agent-options.js';
import { ApiKeyService, type ApiKeyServiceOptions } from './auth/api-keys.js';
import { UsageService } from './usage/usage-service.js';
import { UploadService, type UploadOptions } from './uploads/upload-service.js';
import { RagdeskError } from './errors.js';
import { assertAdapter } from './adapter-checks/assert-adapter.js';
import {
  CHAT_MODEL_METHODS,
  RERANKER_METHODS,
  EMBEDDINGS_METHODS,
  FILE_LOADING_METHODS,
  VECTOR_INDEX_METHODS,
  WEB_LOADER_METHODS,
} from './adapter-checks/port-methods.js';
import { ACCOUNT_STORE_METHODS, RETRIEVAL_STORE_METHODS } from './adapter-checks/store-methods.js';
import type { ChatModel } from './ports/chat-model.js';
import type { Embeddings } from './ports/embeddings.js';
import type { Reranker } from './ports/reranker.js';
import type { FileLoading } from './ports/loader.js';
import type { WebLoader } from './ports/web-loader.js';
import type { JobRunnerOptions } from './datasources/job-runner.js';
import type { UsageLimits } from './datasources/usage-limits.js';
import type { AccountStore, RetrievalStore, Store } from './ports/store.js';
import type { VectorIndex } from './ports/vector-index.js';

export interface RagdeskOptions {
  /** Datastores, datasources, sync jobs, chunks and lexical search (`sqliteStores(...).retrieval`). */
  retrieval?: RetrievalStore;
  /** Agents, conversations, API keys, usage counters and upload links (`sqliteStores(...).accounts`). */
  accounts?: AccountStore;
  /**
   * One object serving as both stores.
   *
   * @deprecated Pass `retrieval` and `accounts` instead; `store` goes with the next minor version.
   */
  store?: Store;
  index: VectorIndex;
  embeddings: Embeddings;
  /** Answers agent queries (used by agents). */
  chat?: ChatModel;
  /** Second-stage ordering for queries that ask for it (`rerank: { topN }`); `httpReranker()` from `ragdesk/rerank`. */
  reranker?: Reranker;
  /** Reads uploaded files for `file` datasources (`fileLoading()` from `ragdesk/loaders`). */
  files?: FileLoading;
  /** Fetches pages and crawls sites for `web_page` / `web_site` datasources (`webLoader()` from `ragdesk/web`). */
  web?: WebLoader;
  /** Ingestion limits; exceeding one ends a sync in `usage_limit_reached`. */
  usage?: UsageLimits;
  /** Background sync jobs: concurrency, lease, retries. */
  jobs?: JobRunnerOptions;
  /** Chunk size and overlap in tokens; defaults 512 and 64. */
  chunking?: Partial<ChunkingOptions>;
  /** API key bookkeeping (how often `lastUsedAt` is written). */
  keys?: ApiKeyServiceOptions;
  /** Agent retrieval depth, prompt budgets, price table and query limits. */
  agents?: AgentOptionsInput;
  /** Upload links for chat attachments: how long a link and a file last, the largest file. */
  uploads?: UploadOptions;
}

export interface Ragdesk {
  readonly datastores: DatastoreService;
  readonly datasources: DatasourceService;
  /** API keys of owners (used by the HTTP adapter and the CLI). */
  readonly keys: ApiKeyService;
  readonly agents: AgentService;
  /** What each owner uses against the configured limits. */
  readonly usage: UsageService;
  /** Upload links for files chat visitors attach to a message (used by the HTTP adapter). */
  readonly uploads: UploadService;
  /** The adapters this instance was composed of, e.g. for labelling responses. */
  readonly adapters: { retrieval: string; accounts: string; index: string; embeddings: string; chat: string | null };
  /** Waits for pending writes, flushes the vector index, closes the loaders and both stores. Idempotent. */
  close(): Promise<void>;
}

/** Composition root: checks the adapters fit their ports, then wires the services. No globals. */
export function createRagdesk(options: RagdeskOptions): Ragdesk {
  const { retrieval, accounts } = resolveStores(options);
  assertAdapter('index', options.index, VECTOR_INDEX_METHODS);
  assertAdapter('embeddings', options.embeddings, EMBEDDINGS_METHODS);
  const { dimensions, maxBatchSize, model } = options.embeddings;
  if (!Number.isInteger(dimensions) || dimensions < 1) {
    throw new RagdeskError('invalid_adapter', `embeddings.dimensions must be a positive integer, got ${String(dimensions)}`);
  }
  if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1) {
    throw new RagdeskError('invalid_adapter', `embeddings.maxBatchSize must be a positive integer, got ${String(maxBatchSize)}`);
  }
  if (typeof model !== 'string' || !model) throw new RagdeskError('invalid_adapter', 'embeddings.model must be a non-empty string');
  if (options.chat) assertAdapter('chat', options.chat, CHAT_MODEL_METHODS);
  if (options.reranker) {
    assertAdapter('reranker', options.reranker, RERANKER_METHODS);
    if (typeof options.reranker.model !== 'string' || !options.reranker.model) {
      throw new RagdeskError('invalid_adapter', 'reranker.model must be a non-empty string', { details: { port: 'reranker' } });
    }
  }

  const chunking = resolveChunking(options.chunking);
  if (options.web) assertAdapter('web', options.web, WEB_LOADER_METHODS);
  if (options.files) assertAdapter('files', options.files, FILE_LOADING_METHODS);
  const context = new RagdeskContext(
    retrieval,
    accounts,
    options.index,
    options.embeddings,
    chunking,
    options.files,
    options.web,
    options.usage,
    options.reranker,
  );
  const datasources = new DatasourceService(context, options.jobs);
  // After the sync runner's closer: no sync is left to need a parser thread.
  for (const loader of [options.files, options.web]) {
    if (loader?.close) context.onClose(loader.close.bind(loader));
  }
  // Unfinished jobs of a previous run resume in the background. A failure to read them is not lost:
  // `start()` keeps the rejected promise, and `create` / `sync` await it and rethrow.
  datasources.start().catch(() => undefined);
  const uploads = new UploadService(context, options.uploads);
  const agentOptions = resolveAgentOptions(options.agents);
  context.uploadClock = uploads.now;
  return {
    datastores: new DatastoreService(context, (datastoreId) => datasources.stopSyncsOf(datastoreId)),
    datasources,
    keys: new ApiKeyService(accounts, () => context.assertOpen(), options.keys),
    agents: new AgentService(context, options.chat, agentOptions),
    usage: new UsageService(context, agentOptions.queryLimit),
    uploads,
    adapters: {
      retrieval: retrieval.name,
      accounts: accounts.name,
      index: options.index.name,
      embeddings: model,
      chat: options.chat?.name ?? null,
    },
    close: () => context.close(),
  };
}

/** The two stores: `retrieval` and `accounts`, or the deprecated `store` serving as both. */
function resolveStores(options: RagdeskOptions): { retrieval: RetrievalStore; accounts: AccountStore } {
  if (options.store !== undefined) {
    if (options.retrieval !== undefined || options.accounts !== undefined) {
      throw new RagdeskError('invalid_adapter', 'pass either `retrieval` and `accounts`, or the deprecated `store`, not both', {
        details: { port: 'store' },
      });
    }
    assertAdapter('store', options.store, RETRIEVAL_STORE_METHODS);
    assertAdapter('store', options.store, ACCOUNT_STORE_METHODS);
    return { retrieval: options.store, accounts: options.store };
  }
  assertAdapter('retrieval', options.retrieval, RETRIEVAL_STORE_METHODS);
  assertAdapter('accounts', options.accounts, ACCOUNT_STORE_METHODS);
  return { retrieval: options.retrieval as RetrievalStore, accounts: options.accounts as AccountStore };
}

function resolveChunking(input: Partial<ChunkingOptions> | undefined): ChunkingOptions {
  const chunkSize = input?.chunkSize ?? 512;
  const overlap = input?.overlap ?? 64;
  if (!Number.isInteger(chunkSize) || chunkSize < 16) {
    throw new RagdeskError('invalid_request', `chunking.chunkSize must be an integer of at least 16, got ${chunkSize}`);
  }
  if (!Number.isInteger(overlap) || overlap < 0 || overlap * 2 >= chunkSize) {
    throw new RagdeskError('invalid_request', `chunking.overlap must be an integer from 0 to under half of chunkSize, got ${overlap}`);
  }
  return { chunkSize, overlap, ...(input?.tokenizer ? { tokenizer: input.tokenizer } : {}) };
}
