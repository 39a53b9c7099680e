import { RagdeskError } from '../../src/errors.js';
import type { ChunkChange, NewDocument, RetrievalStore } from '../../src/ports/store.js';
import { chunkPages } from '../kit/chunk-pages.js';
import { guardedMethods } from '../kit/guarded-methods.js';
import { chunkQueries, type ChunkChangeDetail } from './chunk-queries.js';
import { chunkSlices, SLICED_ABOVE_ROWS } from './chunk-slices.js';
import { inTransaction, translateError } from './database.js';
import { crawlQueries } from './crawl-queries.js';
import { jobQueries } from './job-queries.js';
import { pageQueries } from './page-queries.js';
import { lexicalSearch, type ChunkWrite, type LexicalSearchOptions } from './lexical-search.js';
import { recordQueries } from './record-queries.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { storedFiles } from './stored-files.js';

/**
 * The `RetrievalStore` port on SQLite: datastores, datasources with their status history and
 * uploaded files, sync jobs, chunks with their vectors, and bm25 search from an in-memory index
 * per datastore (see lexical-search.ts). Every method is one synchronous transaction, so it is
 * atomic and never interleaves with another call of this process. Two are exceptions, written in
 * parts over several turns and made visible by one last short transaction: uploaded files
 * (stored-files.ts) and the chunks of a big document (chunk-slices.ts).
 */
export function sqliteRetrievalStore(
  connection: SqliteConnection,
  lexicalOptions: LexicalSearchOptions,
  { hitCacheBytes = 0 }: { hitCacheBytes?: number } = {},
): RetrievalStore {
  const { db } = connection;
  let closed = false;
  const guard = connection.guard(() => closed);
  const records = recordQueries(db);
  const chunks = chunkQueries(db, records, { hitCacheBytes });
  // Every step of a file read or write: refuses after close, counts for the checkpointer.
  const beforeStep = () => guard.before();
  const files = storedFiles(db, records, beforeStep);
  const slices = chunkSlices(db, records, chunks, beforeStep);
  try {
    slices.removeHiddenSets();
  } catch (error) {
    throw translateError(error, 'opening the SQLite store');
  }
  const lexical = lexicalSearch(db, lexicalOptions);
  connection.retain();

  /** One read of several (a page of a paging read), guarded like a method. */
  function guardedRead<T>(action: string, read: () => T): Promise<T> {
    try {
      guard.before();
      return Promise.resolve(read());
    } catch (error) {
      return Promise.reject(translateError(error, action));
    }
  }

  /** Whether a write must return the rows as they were: only where the bm25 index is in memory. */
  const tracks = (datastoreId: string) => lexical.tracks(datastoreId);
  /** Brings the bm25 index up to a committed write whose datasource now holds `next`. */
  function followLexical(change: ChunkChangeDetail, next: ChunkWrite['next']): void {
    if (change.previous !== null) {
      lexical.apply({ datastoreId: change.datastoreId, sequence: change.sequence, previous: change.previous, next });
    }
  }
  const portChange = ({ removedIds, addedIds, sequence }: ChunkChange): ChunkChange => ({ removedIds, addedIds, sequence });

  /** Whether a replace writes or removes enough rows to go in slices (false when unsure: the guard reports errors). */
  function isBig(datasourceId: string, incoming: number): boolean {
    try {
      return incoming > SLICED_ABOVE_ROWS || chunks.countRows(datasourceId) + incoming > SLICED_ABOVE_ROWS;
    } catch {
      return false;
    }
  }

  function deleteDatasourceRow(id: string): ChunkChange | null {
    const change = chunks.deleteDatasource(id, tracks);
    if (change === null) return null;
    // Committed: the lexical index follows in the same synchronous step.
    followLexical(change, []);
    return portChange(change);
  }

  return guardedMethods<RetrievalStore>(
    {
      name: 'sqlite',
      specificationVersion: 'v1',
      ...records.methods,
      ...chunks.methods,
      ...jobQueries(db, records),
      ...crawlQueries(db),
      ...pageQueries(db),

      deleteDatastore(id) {
        const deleted = records.deleteDatastore(id);
        lexical.drop(id);
        return deleted;
      },

      deleteDatasource(id) {
        if (!isBig(id, 0)) return deleteDatasourceRow(id);
        // A big document's rows in one cascading delete held the loop 150-190 ms (16,000 chunks):
        // first its set is replaced by an empty one in slices (hidden at once, rows deleted slice by
        // slice), then the row goes in one short step.
        return (async () => {
          let emptied: ChunkChangeDetail;
          try {
            emptied = await slices.replace(id, [], undefined, tracks, (change) => followLexical(change, []));
          } catch (error) {
            if (RagdeskError.isInstance(error) && error.code === 'not_found') return null;
            throw error;
          }
          const removed = await guardedRead('deleteDatasource', () => deleteDatasourceRow(id));
          return {
            removedIds: [...emptied.removedIds, ...(removed?.removedIds ?? [])],
            addedIds: [],
            sequence: removed?.sequence ?? emptied.sequence,
          };
        })();
      },

      replaceChunks(datasourceId, incoming, patch) {
        const follow = (change: ChunkChangeDetail) => followLexical(change, incoming);
        // A big document (or a big set it replaces) in slices over several turns (chunk-slices.ts).
        if (isBig(datasourceId, incoming.length)) {
          return slices.replace(datasourceId, incoming, patch, tracks, follow).then(portChange);
        }
        const change = chunks.replaceChunks(datasourceId, incoming, patch, tracks);
        follow(change);
        return portChange(change);
      },

      createDocuments(documents) {
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
      },

      iterateChunks: (datastoreId, options = {}) =>
        chunkPages(options.batchSize, (cursor: { hash: string; pk: number } | null, size) =>
          guardedRead('iterateChunks', () => chunks.page(datastoreId, cursor, size)),
        ),
      // Larger pages than iterateChunks: a page is one statement run of a few microseconds a chunk,
      // so 4,096 chunks hold the event loop ~10-25 ms (20k chunks: ~115 ms in 5 pages, loaded machine).
      iterateChunkVectors: (datastoreId, options = {}) =>
        chunkPages(
          options.batchSize,
          (cursor: number | null, size) => guardedRead('iterateChunkVectors', () => chunks.vectorPage(datastoreId, cursor, size)),
          4_096,
        ),

      // In parts over several turns of the event loop (stored-files.ts), not one synchronous call.
      putDatasourceFile: (datasourceId, file) => files.put(datasourceId, file),
      getDatasourceFile: (datasourceId) => files.get(datasourceId),

      // Asynchronous: the first search of a datastore builds its index in steps (lexical-search.ts).
      searchText: (request) => lexical.search(request),
      searchTextLists: (request) => lexical.searchLists(request),
      prepareTextSearch: (datastoreId) => lexical.prepare(datastoreId),

      async close() {
        if (closed) return;
        closed = true;
        lexical.close();
        await connection.release();
      },
    },
    guard,
  );
}
