import type { RetrievalStore } from '../../src/ports/store.js';
import { chunkPages } from '../kit/chunk-pages.js';
import { guardedMethods, type MethodGuard } from '../kit/guarded-methods.js';
import { chunkQueries } from './chunk-queries.js';
import type { PoolHandle } from './connection.js';
import { crawlQueries } from './crawl-queries.js';
import { pageQueries } from './page-queries.js';
import { jobQueries } from './job-queries.js';
import { lexicalSearch } from './lexical-search.js';
import { recordQueries } from './record-queries.js';
import type { LexicalSearchLimits } from './term-plan.js';

/**
 * The `RetrievalStore` port on Postgres: datastores, datasources with their status history and
 * uploaded files, sync jobs, chunks with their vectors (`real[]`) and full-text search (tsvector +
 * GIN). Every method is one statement or one transaction, so it is atomic, and several processes
 * may share the database: job claims use FOR UPDATE SKIP LOCKED with a lease, status changes are
 * row-locked compare-and-sets, chunk writes of a datastore are serialised by a row lock on the
 * datastore. The schema is migrated by the caller (see `postgresStores`).
 */
export function postgresRetrievalStore(
  handle: PoolHandle,
  schema: string,
  limits: LexicalSearchLimits,
  guardFor: (isClosed: () => boolean) => MethodGuard,
): RetrievalStore {
  const { pool } = handle;
  const records = recordQueries(pool, schema);
  const chunks = chunkQueries(pool, schema);
  const lexical = lexicalSearch(pool, schema, limits);
  let closed = false;
  const guard = guardFor(() => closed);
  handle.retain();

  return guardedMethods<RetrievalStore>(
    {
      name: 'postgres',
      specificationVersion: 'v1',
      ...records.methods,
      ...chunks.methods,
      ...jobQueries(pool, schema, records),
      ...crawlQueries(pool, schema),
      ...pageQueries(pool, schema),

      async deleteDatastore(id) {
        const deleted = await records.deleteDatastore(id);
        if (deleted) lexical.reset();
        return deleted;
      },
      async deleteDatasource(id) {
        const change = await chunks.deleteDatasource(id);
        if (change !== null) lexical.noteWrites(change.removedIds.length);
        return change;
      },
      async replaceChunks(datasourceId, incoming, patch) {
        const change = await chunks.replaceChunks(datasourceId, incoming, patch);
        lexical.noteWrites(change.addedIds.length + change.removedIds.length);
        return change;
      },
      iterateChunks: (datastoreId, options = {}) =>
        chunkPages(options.batchSize, async (cursor: { hash: string; pk: string } | null, size) => {
          try {
            guard.before();
            return await chunks.page(datastoreId, cursor, size);
          } catch (error) {
            throw guard.translate(error, 'iterateChunks');
          }
        }),
      searchText: (request) => lexical.search(request),

      async close() {
        if (closed) return;
        closed = true;
        await handle.release();
      },
    },
    guard,
  );
}
