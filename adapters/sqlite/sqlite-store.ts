import { RagdeskError } from '../../src/errors.js';
import type { ChunkChange, NewDocument, Store } from '../../src/ports/store.js';
import { chunkPages } from '../kit/chunk-pages.js';
import { choiceOption } from '../kit/option-checks.js';
import { agentQueries } from './agent-key-usage-queries.js';
import { startCheckpointer, type Checkpointer } from './checkpointer.js';
import { chunkQueries, type ChunkChangeDetail } from './chunk-queries.js';
import { chunkSlices, SLICED_ABOVE_ROWS } from './chunk-slices.js';
import {
  configureConnection,
  DEFAULT_BUSY_TIMEOUT_MS,
  inTransaction,
  openDatabase,
  translateError,
  type SqliteDatabase,
} from './database.js';
import { DEFAULT_LEXICAL_OPTIONS, lexicalSearch, type ChunkWrite, type LexicalSearchOptions } from './lexical-search.js';
import { jobQueries } from './job-queries.js';
import { recordQueries } from './record-queries.js';
import { migrate } from './schema.js';
import { storedFiles } from './stored-files.js';
import { uploadQueries } from './upload-queries.js';
import { crawlQueries } from './crawl-queries.js';

interface CommonOptions {
  /** Milliseconds a write waits for another connection's lock. Default 5000. */
  busyTimeoutMs?: number;
  /** bm25 parameters and the query-length cap of `searchText` (see {@link LexicalSearchOptions}). */
  lexical?: Partial<LexicalSearchOptions>;
  /**
   * Where WAL checkpoints run for a database file the store opens itself: `worker` (default) on a
   * worker thread with its own connection, so a commit never stalls the event loop copying the
   * WAL; `inline` leaves them to SQLite, inside the commit that fills the WAL (see checkpointer.ts).
   * A database handed over with `database` always keeps its owner's settings.
   */
  checkpoints?: 'worker' | 'inline';
}

/** Where the store keeps its data: a file path (`:memory:` for a throwaway database) or an open database. */
export type SqliteStoreOptions = CommonOptions &
  (
    | { path: string; database?: never }
    | {
        /**
         * A better-sqlite3 `Database` (or anything with the same methods). The store configures
         * it (WAL, foreign keys, ...) and migrates it, but does not close it: its owner does.
         */
        database: SqliteDatabase;
        path?: never;
      }
  );

/**
 * The `Store` port on SQLite (better-sqlite3): records, chunks with their vectors, status history,
 * uploaded files and sync jobs, in one file, plus bm25 search from an in-memory index per
 * datastore (see lexical-search.ts). Every method is one synchronous transaction, so it is atomic
 * and never interleaves with another call of this process. Two are exceptions, written in parts
 * over several turns and made visible by one last short transaction: uploaded files
 * (stored-files.ts) and the chunks of a big document (chunk-slices.ts).
 */
export function sqliteStore(options: SqliteStoreOptions): Store {
  const checkpoints = choiceOption('sqliteStore', 'checkpoints', options.checkpoints, ['worker', 'inline'], 'worker');
  const ownsDatabase = options.database === undefined;
  const db = options.database ?? openDatabase(requirePath(options.path));
  try {
    configureConnection(db, options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS);
    migrate(db);
  } catch (error) {
    if (ownsDatabase) db.close();
    throw translateError(error, 'opening the SQLite store');
  }
  const records = recordQueries(db);
  const chunks = chunkQueries(db, records);
  const jobs = jobQueries(db, records);
  const agents = agentQueries(db);
  const uploads = uploadQueries(db);
  const crawls = crawlQueries(db);
  // Every step of a file read or write: refuses after close, counts for the checkpointer.
  const beforeStep = () => {
    if (closed) throw closedError();
    checkpointer?.noteWrite();
  };
  const files = storedFiles(db, records, beforeStep);
  const slices = chunkSlices(db, records, chunks, beforeStep);
  try {
    slices.removeHiddenSets();
  } catch (error) {
    if (ownsDatabase) db.close();
    throw translateError(error, 'opening the SQLite store');
  }
  const lexical = lexicalSearch(db, { ...DEFAULT_LEXICAL_OPTIONS, ...options.lexical });
  const checkpointer = ownsDatabase && checkpoints === 'worker' ? checkpointerFor(db, options.path) : null;
  let closed = false;

  /** Whether a write must return the rows as they were: only where the bm25 index is in memory. */
  const tracks = (datastoreId: string) => lexical.tracks(datastoreId);
  /** Brings the bm25 index up to a committed write whose datasource now holds `next`. */
  function followLexical(change: ChunkChangeDetail, next: ChunkWrite['next']): void {
    if (change.previous !== null) {
      lexical.apply({ datastoreId: change.datastoreId, sequence: change.sequence, previous: change.previous, next });
    }
  }
  const portChange = ({ removedIds, addedIds, sequence }: ChunkChange): ChunkChange => ({ removedIds, addedIds, sequence });

  /** Whether a replace writes or removes enough rows to go in slices (false when unsure: `run` reports errors). */
  function isBig(datasourceId: string, incoming: number): boolean {
    try {
      return incoming > SLICED_ABOVE_ROWS || chunks.countRows(datasourceId) + incoming > SLICED_ABOVE_ROWS;
    } catch {
      return false;
    }
  }

  /** Runs one store operation: refuses after close, gives driver errors stable codes. */
  function run<T>(action: string, operation: () => T): Promise<T> {
    if (closed) return Promise.reject(closedError());
    // Reads count too: telling them apart costs more than a checkpoint that finds nothing to copy.
    checkpointer?.noteWrite();
    try {
      return Promise.resolve(operation());
    } catch (error) {
      return Promise.reject(translateError(error, action));
    }
  }

  /** Like `run` for an operation made of several steps (each step checks for close itself). */
  function runSteps<T>(action: string, operation: () => Promise<T>): Promise<T> {
    if (closed) return Promise.reject(closedError());
    return operation().catch((error: unknown) => {
      throw translateError(error, action);
    });
  }

  return {
    name: 'sqlite',
    specificationVersion: 'v1',

    createDatastore: (record) => run('createDatastore', () => records.createDatastore(record)),
    getDatastore: (id) => run('getDatastore', () => records.getDatastore(id)),
    listDatastores: (filter = {}) => run('listDatastores', () => records.listDatastores(filter.ownerId)),
    updateDatastore: (id, patch) => run('updateDatastore', () => records.updateDatastore(id, patch)),
    deleteDatastore: (id) =>
      run('deleteDatastore', () => {
        const deleted = records.deleteDatastore(id);
        lexical.drop(id);
        return deleted;
      }),

    createDatasource: (record) => run('createDatasource', () => records.createDatasource(record)),
    getDatasource: (id) => run('getDatasource', () => records.getDatasource(id)),
    getDatasources: (ids) => run('getDatasources', () => records.getDatasources(ids)),
    getDatasourceRefs: (ids) => run('getDatasourceRefs', () => records.getDatasourceRefs(ids)),
    listDatasourceIdsMatching: (datastoreId, filter) =>
      run('listDatasourceIdsMatching', () => records.listDatasourceIdsMatching(datastoreId, filter)),
    listDatasources: (datastoreId, listOptions = {}) =>
      run('listDatasources', () => records.listDatasources(datastoreId, listOptions.groupId, listOptions.statuses)),
    updateDatasource: (id, patch) => run('updateDatasource', () => records.updateDatasource(id, patch)),
    transitionDatasource: (id, expected, patch) => run('transitionDatasource', () => records.transitionDatasource(id, expected, patch)),
    listStatusEvents: (datasourceId) => run('listStatusEvents', () => records.listStatusEvents(datasourceId)),
    deleteDatasource: (id) => {
      const deleteRow = () => {
        const change = chunks.deleteDatasource(id, tracks);
        if (change === null) return null;
        // Committed: the lexical index follows in the same synchronous step.
        followLexical(change, []);
        return portChange(change);
      };
      // A big document's rows in one cascading delete held the loop 150-190 ms (16,000 chunks):
      // first its set is replaced by an empty one in slices (hidden at once, rows deleted slice by
      // slice), then the row goes in one short step.
      if (!closed && isBig(id, 0)) {
        return runSteps('deleteDatasource', async () => {
          let emptied: ChunkChangeDetail;
          try {
            emptied = await slices.replace(id, [], undefined, tracks, (change) => followLexical(change, []));
          } catch (error) {
            if (RagdeskError.isInstance(error) && error.code === 'not_found') return null;
            throw error;
          }
          const removed = await run('deleteDatasource', deleteRow);
          return {
            removedIds: [...emptied.removedIds, ...(removed?.removedIds ?? [])],
            addedIds: [],
            sequence: removed?.sequence ?? emptied.sequence,
          };
        });
      }
      return run('deleteDatasource', deleteRow);
    },

    replaceChunks: (datasourceId, incoming, patch) => {
      const follow = (change: ChunkChangeDetail) => followLexical(change, incoming);
      // A big document (or a big set it replaces) in slices over several turns (chunk-slices.ts).
      if (!closed && isBig(datasourceId, incoming.length)) {
        return runSteps('replaceChunks', () => slices.replace(datasourceId, incoming, patch, tracks, follow).then(portChange));
      }
      return run('replaceChunks', () => {
        const change = chunks.replaceChunks(datasourceId, incoming, patch, tracks);
        follow(change);
        return portChange(change);
      });
    },
    createDocuments: (documents) =>
      run('createDocuments', () => {
        const changes = inTransaction(db, () =>
          documents.map((document) => chunks.createDocument(document.datasource, document.chunks, document.patch, tracks)),
        );
        // Committed: the lexical index follows in the same synchronous step, document by document.
        changes.forEach((change, i) => followLexical(change, (documents[i] as NewDocument).chunks));
        return {
          removedIds: changes.flatMap((change) => change.removedIds),
          addedIds: changes.flatMap((change) => change.addedIds),
          sequence: changes.reduce((last, change) => Math.max(last, change.sequence), 0),
        };
      }),
    getChunks: (ids, readOptions = {}) => run('getChunks', () => chunks.getChunks(ids, readOptions.vectors !== false)),
    getChunkHits: (ids) => run('getChunkHits', () => chunks.getHits(ids)),
    listChunks: (datasourceId) => run('listChunks', () => chunks.listChunks(datasourceId)),
    countChunks: (datastoreId) => run('countChunks', () => chunks.countChunks(datastoreId)),
    findVectorsByHash: (datastoreId, hashes, dimensions) =>
      run('findVectorsByHash', () => chunks.findVectorsByHash(datastoreId, hashes, dimensions)),
    chunkSequence: (datastoreId) => run('chunkSequence', () => chunks.chunkSequence(datastoreId)),

    iterateChunks: (datastoreId, iterateOptions = {}) =>
      chunkPages(iterateOptions.batchSize, (cursor: { hash: string; pk: number } | null, size) =>
        run('iterateChunks', () => chunks.page(datastoreId, cursor, size)),
      ),
    // Larger pages than iterateChunks: a page is one statement run of a few microseconds a chunk,
    // so 4,096 chunks hold the event loop ~10-25 ms (20k chunks: ~115 ms in 5 pages, loaded machine).
    iterateChunkVectors: (datastoreId, iterateOptions = {}) =>
      chunkPages(
        iterateOptions.batchSize,
        (cursor: number | null, size) => run('iterateChunkVectors', () => chunks.vectorPage(datastoreId, cursor, size)),
        4_096,
      ),

    getChunkVectors: (datastoreId, ids) => run('getChunkVectors', () => chunks.vectorsOfIds(datastoreId, ids)),

    // In parts over several turns of the event loop (stored-files.ts), not one synchronous call.
    putDatasourceFile: (datasourceId, file) => runSteps('putDatasourceFile', () => files.put(datasourceId, file)),
    getDatasourceFile: (datasourceId) => runSteps('getDatasourceFile', () => files.get(datasourceId)),
    createJob: (job) => run('createJob', () => jobs.createJob(job)),
    getJob: (id) => run('getJob', () => jobs.getJob(id)),
    listJobs: (filter) => run('listJobs', () => jobs.listJobs(filter)),
    claimJob: (claim) => run('claimJob', () => jobs.claimJob(claim)),
    updateJob: (id, patch) => run('updateJob', () => jobs.updateJob(id, patch)),

    // Asynchronous: the first search of a datastore builds its index in steps (lexical-search.ts).
    searchText: (request) => runSteps('searchText', () => lexical.search(request)),
    prepareTextSearch: (datastoreId) => runSteps('prepareTextSearch', () => lexical.prepare(datastoreId)),

    createAgent: (record) => run('createAgent', () => agents.createAgent(record)),
    getAgent: (id) => run('getAgent', () => agents.getAgent(id)),
    listAgents: (filter = {}) => run('listAgents', () => agents.listAgents(filter.ownerId)),
    updateAgent: (id, patch) => run('updateAgent', () => agents.updateAgent(id, patch)),
    deleteAgent: (id) => run('deleteAgent', () => agents.deleteAgent(id)),
    createConversation: (record) => run('createConversation', () => agents.createConversation(record)),
    getConversation: (agentId, id) => run('getConversation', () => agents.getConversation(agentId, id)),
    listConversations: (agentId) => run('listConversations', () => agents.listConversations(agentId)),
    appendMessages: (agentId, conversationId, messages) =>
      run('appendMessages', () => agents.appendMessages(agentId, conversationId, messages)),
    listMessages: (agentId, conversationId, listOptions = {}) =>
      run('listMessages', () => agents.listMessages(agentId, conversationId, listOptions.limit)),
    findConversations: (filter) => run('findConversations', () => agents.findConversations(filter)),
    listConversationsWithId: (id) => run('listConversationsWithId', () => agents.listConversationsWithId(id)),
    deleteConversation: (agentId, id) => run('deleteConversation', () => agents.deleteConversation(agentId, id)),
    getMessage: (id) => run('getMessage', () => agents.getMessage(id)),
    getMessageConversation: (messageId) => run('getMessageConversation', () => agents.getMessageConversation(messageId)),
    setMessageFeedback: (id, feedback) => run('setMessageFeedback', () => agents.setMessageFeedback(id, feedback)),
    createApiKey: (record) => run('createApiKey', () => agents.createApiKey(record)),
    getApiKey: (id) => run('getApiKey', () => agents.getApiKey(id)),
    findApiKeyByHash: (hash) => run('findApiKeyByHash', () => agents.findApiKeyByHash(hash)),
    listApiKeys: (filter = {}) => run('listApiKeys', () => agents.listApiKeys(filter.ownerId)),
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
      lexical.close();
      // The worker's connection goes first, so the main connection is the last one and its close
      // checkpoints the whole WAL and removes it.
      await checkpointer?.close();
      if (ownsDatabase) db.close();
    },
  };
}

function checkpointerFor(db: SqliteDatabase, path: string | undefined): Checkpointer | null {
  // In-memory databases have no WAL; URI filenames may name one (`mode=memory`) or carry options
  // the worker's plain open would not apply.
  if (path === undefined || path === ':memory:' || path === '' || path.startsWith('file:')) return null;
  return startCheckpointer({ path, setAutocheckpoint: (pages) => db.exec(`PRAGMA wal_autocheckpoint = ${pages}`) });
}

function requirePath(path: string | undefined): string {
  if (typeof path !== 'string') {
    throw new RagdeskError('invalid_request', 'sqliteStore needs a `path` or a `database`');
  }
  return path;
}

function closedError(): RagdeskError {
  return new RagdeskError('closed', 'the SQLite store is closed');
}
