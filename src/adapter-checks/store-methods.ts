import type {
  AgentStore,
  ApiKeyStore,
  ChunkStore,
  ConversationStore,
  CrawlStore,
  DatasourceStore,
  DatastoreStore,
  JobStore,
  AccountStore,
  RetrievalStore,
  StoreLifecycle,
  TextSearchStore,
  UploadStore,
  UsageStore,
} from '../ports/store.js';
import type { PortMethods, RequiredMethodName } from './method-names.js';

const LIFECYCLE: Record<RequiredMethodName<StoreLifecycle>, true> = { close: true };

const DATASTORES: Record<RequiredMethodName<DatastoreStore>, true> = {
  createDatastore: true,
  getDatastore: true,
  listDatastores: true,
  updateDatastore: true,
  deleteDatastore: true,
};

const DATASOURCES: Record<RequiredMethodName<DatasourceStore>, true> = {
  createDatasource: true,
  getDatasource: true,
  getDatasources: true,
  listDatasources: true,
  updateDatasource: true,
  transitionDatasource: true,
  listStatusEvents: true,
  deleteDatasource: true,
  putDatasourceFile: true,
  getDatasourceFile: true,
};

const CHUNKS: Record<RequiredMethodName<ChunkStore>, true> = {
  replaceChunks: true,
  getChunks: true,
  listChunks: true,
  iterateChunks: true,
  countChunks: true,
  findVectorsByHash: true,
  chunkSequence: true,
};

const TEXT_SEARCH: Record<RequiredMethodName<TextSearchStore>, true> = { searchText: true };

const JOBS: Record<RequiredMethodName<JobStore>, true> = {
  createJob: true,
  getJob: true,
  listJobs: true,
  claimJob: true,
  updateJob: true,
};

const AGENTS: Record<RequiredMethodName<AgentStore>, true> = {
  createAgent: true,
  getAgent: true,
  listAgents: true,
  updateAgent: true,
  deleteAgent: true,
};

const CONVERSATIONS: Record<RequiredMethodName<ConversationStore>, true> = {
  createConversation: true,
  getConversation: true,
  listConversations: true,
  findConversations: true,
  listConversationsWithId: true,
  deleteConversation: true,
  appendMessages: true,
  listMessages: true,
  getMessage: true,
  getMessageConversation: true,
  setMessageFeedback: true,
};

const API_KEYS: Record<RequiredMethodName<ApiKeyStore>, true> = {
  createApiKey: true,
  getApiKey: true,
  findApiKeyByHash: true,
  listApiKeys: true,
  updateApiKey: true,
};

const USAGE: Record<RequiredMethodName<UsageStore>, true> = { consumeUsage: true };

const UPLOADS: Record<RequiredMethodName<UploadStore>, true> = {
  createUpload: true,
  getUpload: true,
  completeUpload: true,
  getUploadBytes: true,
  deleteUploadsBefore: true,
};

const CRAWLS: Record<RequiredMethodName<CrawlStore>, true> = {
  putCrawlState: true,
  getCrawlStates: true,
  putCrawlPages: true,
  listCrawlPages: true,
  deleteCrawlPages: true,
};

/**
 * The retrieval store's methods, part by part. The whole is typed against `RetrievalStore` too, so
 * a part added to the port without its list here does not compile either.
 */
export const RETRIEVAL_STORE_METHODS: PortMethods<RetrievalStore> = {
  required: { ...LIFECYCLE, ...DATASTORES, ...DATASOURCES, ...CHUNKS, ...TEXT_SEARCH, ...JOBS, ...CRAWLS },
  optional: {
    getDatasourceRefs: true,
    listDatasourceIdsMatching: true,
    pageDatasources: true,
    pageChunks: true,
    getChunkHits: true,
    createDocuments: true,
    iterateChunkVectors: true,
    getChunkVectors: true,
    prepareTextSearch: true,
    searchTextLists: true,
  },
};

/** The account store's methods, part by part, typed against `AccountStore` as above. */
export const ACCOUNT_STORE_METHODS: PortMethods<AccountStore> = {
  required: { ...LIFECYCLE, ...AGENTS, ...CONVERSATIONS, ...API_KEYS, ...USAGE, ...UPLOADS },
  optional: {},
};
