import { RagdeskError } from '../../src/errors.js';
import type { Store } from '../../src/ports/store.js';
import { chunkPages } from '../kit/chunk-pages.js';
import { agentQueries } from './agent-key-usage-queries.js';
import { uploadQueries } from './upload-queries.js';
import { crawlQueries } from './crawl-queries.js';
import { chunkQueries } from './chunk-queries.js';
import { openPool, quoteIdentifier, translateError, type PoolHandle, type PostgresConnectionOptions } from './connection.js';
import { jobQueries } from './job-queries.js';
import { lexicalSearch } from './lexical-search.js';
import { recordQueries } from './record-queries.js';
import { DEFAULT_SCHEMA, migrate } from './schema.js';
import { DEFAULT_LEXICAL_LIMITS, type LexicalSearchLimits } from './term-plan.js';

/** Settings shared by the store and the index. */
export interface PostgresCommonOptions {
  /**
   * Postgres schema (namespace) holding ragdesk's tables, created when missing. Default `ragdesk`.
   * Two installs can share one database under two schemas.
   */
  schema?: string;
}

export type PostgresStoreOptions = PostgresConnectionOptions &
  PostgresCommonOptions & {
    /** Cost limits of `searchText` (see {@link LexicalSearchLimits}). */
    lexicalLimits?: Partial<LexicalSearchLimits>;
  };

/**
 * The `Store` port on Postgres (`pg`): records, chunks with their vectors (`real[]`), full-text
 * search (tsvector + GIN), status history, uploaded files, sync jobs, agents, conversations, API
 * keys and usage counters. Every method is one statement or one transaction, so it is atomic, and
 * several processes may share the database: job claims use FOR UPDATE SKIP LOCKED with a lease,
 * status changes are row-locked compare-and-sets, chunk writes of a datastore are serialised by a
 * row lock on the datastore.
 *
 * Creates (or upgrades) its tables before resolving. Needs no Postgres extension; the vector index
 * (`postgresIndex`) needs pgvector.
 */
export async function postgresStore(options: PostgresStoreOptions): Promise<Store> {
  const handle = openPool(options);
  handle.retain();
  return createPostgresStore(handle, options);
}

/** The store over a pool handle it shares (see `postgres()`), after migrating the schema. */
export async function createPostgresStore(
  handle: PoolHandle,
  options: PostgresCommonOptions & { lexicalLimits?: Partial<LexicalSearchLimits> },
): Promise<Store> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  try {
    await migrate(handle.pool, schema);
  } catch (error) {
    await handle.release();
    throw translateError(error, 'opening the Postgres store');
  }
  const { pool } = handle;
  const s = quoteIdentifier(schema);
  const records = recordQueries(pool, s);
  const chunks = chunkQueries(pool, s);
  const jobs = jobQueries(pool, s, records);
  const agents = agentQueries(pool, s);
  const uploads = uploadQueries(pool, s);
  const crawls = crawlQueries(pool, s);
  const lexical = lexicalSearch(pool, s, { ...DEFAULT_LEXICAL_LIMITS, ...options.lexicalLimits });
  let closed = false;

  /** Runs one store operation: refuses after close, gives driver errors stable codes. */
  async function run<T>(action: string, operation: () => Promise<T>): Promise<T> {
    if (closed) throw closedError();
    try {
      return await operation();
    } catch (error) {
      throw translateError(error, action);
    }
  }

  return {
    name: 'postgres',
    specificationVersion: 'v1',

    createDatastore: (record) => run('createDatastore', () => records.createDatastore(record)),
    getDatastore: (id) => run('getDatastore', () => records.getDatastore(id)),
    listDatastores: (filter) => run('listDatastores', () => records.listDatastores(filter)),
    updateDatastore: (id, patch) => run('updateDatastore', () => records.updateDatastore(id, patch)),
    deleteDatastore: (id) =>
      run('deleteDatastore', async () => {
        const deleted = await records.deleteDatastore(id);
        if (deleted) lexical.reset();
        return deleted;
      }),

    createDatasource: (record) => run('createDatasource', () => records.createDatasource(record)),
    getDatasource: (id) => run('getDatasource', () => records.getDatasource(pool, id)),
    getDatasources: (ids) => run('getDatasources', () => records.getDatasources(ids)),
    listDatasourceIdsMatching: (datastoreId, filter) =>
      run('listDatasourceIdsMatching', () => records.listDatasourceIdsMatching(datastoreId, filter)),
    listDatasources: (datastoreId, listOptions = {}) =>
      run('listDatasources', async () => {
        const found = await records.listDatasources(datastoreId, listOptions.groupId);
        const { statuses } = listOptions;
        return statuses === undefined ? found : found.filter((record) => statuses.includes(record.status));
      }),
    updateDatasource: (id, patch) => run('updateDatasource', () => records.updateDatasource(id, patch)),
    transitionDatasource: (id, expected, patch) => run('transitionDatasource', () => records.transitionDatasource(id, expected, patch)),
    listStatusEvents: (datasourceId) => run('listStatusEvents', () => records.listStatusEvents(datasourceId)),
    deleteDatasource: (id) =>
      run('deleteDatasource', async () => {
        const change = await chunks.deleteDatasource(id);
        if (change !== null) lexical.noteWrites(change.removedIds.length);
        return change;
      }),

    replaceChunks: (datasourceId, incoming, patch) =>
      run('replaceChunks', async () => {
        const change = await chunks.replaceChunks(datasourceId, incoming, patch);
        lexical.noteWrites(change.addedIds.length + change.removedIds.length);
        return change;
      }),
    getChunks: (ids) => run('getChunks', () => chunks.getChunks(ids)),
    listChunks: (datasourceId) => run('listChunks', () => chunks.listChunks(datasourceId)),
    countChunks: (datastoreId) => run('countChunks', () => chunks.countChunks(datastoreId)),
    findVectorsByHash: (datastoreId, hashes, dimensions) =>
      run('findVectorsByHash', () => chunks.findVectorsByHash(datastoreId, hashes, dimensions)),
    chunkSequence: (datastoreId) => run('chunkSequence', () => chunks.chunkSequence(datastoreId)),

    iterateChunks: (datastoreId, iterateOptions = {}) =>
      chunkPages(iterateOptions.batchSize, (cursor: { hash: string; pk: string } | null, size) =>
        run('iterateChunks', () => chunks.page(datastoreId, cursor, size)),
      ),

    putDatasourceFile: (datasourceId, file) => run('putDatasourceFile', () => jobs.putDatasourceFile(datasourceId, file)),
    getDatasourceFile: (datasourceId) => run('getDatasourceFile', () => jobs.getDatasourceFile(datasourceId)),
    createJob: (job) => run('createJob', () => jobs.createJob(job)),
    getJob: (id) => run('getJob', () => jobs.getJob(id)),
    listJobs: (filter) => run('listJobs', () => jobs.listJobs(filter)),
    claimJob: (claim) => run('claimJob', () => jobs.claimJob(claim)),
    updateJob: (id, patch) => run('updateJob', () => jobs.updateJob(id, patch)),

    searchText: (request) => run('searchText', () => lexical.search(request)),

    createAgent: (record) => run('createAgent', () => agents.createAgent(record)),
    getAgent: (id) => run('getAgent', () => agents.getAgent(id)),
    listAgents: (filter) => run('listAgents', () => agents.listAgents(filter)),
    updateAgent: (id, patch) => run('updateAgent', () => agents.updateAgent(id, patch)),
    deleteAgent: (id) => run('deleteAgent', () => agents.deleteAgent(id)),
    createConversation: (record) => run('createConversation', () => agents.createConversation(record)),
    getConversation: (agentId, id) => run('getConversation', () => agents.getConversation(agentId, id)),
    listConversations: (agentId) => run('listConversations', () => agents.listConversations(agentId)),
    appendMessages: (agentId, conversationId, messages) =>
      run('appendMessages', () => agents.appendMessages(agentId, conversationId, messages)),
    listMessages: (agentId, conversationId, listOptions) =>
      run('listMessages', () => agents.listMessages(agentId, conversationId, listOptions)),
    findConversations: (filter) => run('findConversations', () => agents.findConversations(filter)),
    listConversationsWithId: (id) => run('listConversationsWithId', () => agents.listConversationsWithId(id)),
    deleteConversation: (agentId, id) => run('deleteConversation', () => agents.deleteConversation(agentId, id)),
    getMessage: (id) => run('getMessage', () => agents.getMessage(id)),
    getMessageConversation: (messageId) => run('getMessageConversation', () => agents.getMessageConversation(messageId)),
    setMessageFeedback: (id, feedback) => run('setMessageFeedback', () => agents.setMessageFeedback(id, feedback)),
    createApiKey: (record) => run('createApiKey', () => agents.createApiKey(record)),
    getApiKey: (id) => run('getApiKey', () => agents.getApiKey(id)),
    findApiKeyByHash: (hash) => run('findApiKeyByHash', () => agents.findApiKeyByHash(hash)),
    listApiKeys: (filter) => run('listApiKeys', () => agents.listApiKeys(filter)),
    updateApiKey: (id, patch) => run('updateApiKey', () => agents.updateApiKey(id, patch)),
    consumeUsage: (request) => run('consumeUsage', () => agents.consumeUsage(request)),
    createUpload: (record) => run('createUpload', () => uploads.createUpload(record)),
    getUpload: (id) => run('getUpload', () => uploads.getUpload(id)),
    completeUpload: (id, upload) => run('completeUpload', () => uploads.completeUpload(id, upload)),
    getUploadBytes: (id) => run('getUploadBytes', () => uploads.getUploadBytes(id)),
    deleteUploadsBefore: (cutoff) => run('deleteUploadsBefore', () => uploads.deleteUploadsBefore(cutoff)),
    putCrawlState: (state) => run('putCrawlState', () => crawls.putCrawlState(state)),
    getCrawlStates: (ids) => run('getCrawlStates', () => crawls.getCrawlStates(ids)),
    putCrawlPages: (pages) => run('putCrawlPages', () => crawls.putCrawlPages(pages)),
    listCrawlPages: (datasourceId, page) => run('listCrawlPages', () => crawls.listCrawlPages(datasourceId, page)),
    deleteCrawlPages: (datasourceId, urls) => run('deleteCrawlPages', () => crawls.deleteCrawlPages(datasourceId, urls)),

    async close() {
      if (closed) return;
      closed = true;
      await handle.release();
    },
  };
}

function closedError(): RagdeskError {
  return new RagdeskError('closed', 'the Postgres store is closed');
}
