/**
 * The Postgres adapter (`ragdesk/postgres`): the retrieval store and the account store on Postgres
 * and the VectorIndex on pgvector, over one `pg` pool, for several app instances sharing one database.
 *
 *   const { retrieval, accounts, index } = await postgres({ connectionString: process.env.DATABASE_URL });
 *   const ragdesk = createRagdesk({ retrieval, accounts, index, embeddings });
 */
import type { AccountStore, RetrievalStore, Store } from '../../src/ports/store.js';
import type { VectorIndex } from '../../src/ports/vector-index.js';
import { openPool, type PostgresConnectionOptions } from './connection.js';
import { createPostgresIndex } from './postgres-index.js';
import { createPostgresStores, type PostgresCommonOptions } from './postgres-store.js';
import { joinedStore } from '../kit/joined-store.js';
import type { LexicalSearchLimits } from './term-plan.js';
import type { HnswOptions } from './vector-search.js';

export { postgresStores, postgresStore, type PostgresStoreOptions, type PostgresCommonOptions } from './postgres-store.js';
export { postgresIndex, type PostgresIndexOptions } from './postgres-index.js';
export { DEFAULT_POOL_SIZE, type PostgresConnectionOptions } from './connection.js';
export { DEFAULT_SCHEMA, SCHEMA_VERSION } from './schema.js';
export { DEFAULT_HNSW, type HnswOptions } from './vector-search.js';
export { DEFAULT_LEXICAL_LIMITS, type LexicalSearchLimits } from './term-plan.js';

export type PostgresOptions = PostgresConnectionOptions &
  PostgresCommonOptions & {
    hnsw?: Partial<HnswOptions>;
    lexicalLimits?: Partial<LexicalSearchLimits>;
  };

/** What `postgres()` returns: the two stores and the index over one pool. */
export interface PostgresAdapters {
  retrieval: RetrievalStore;
  accounts: AccountStore;
  index: VectorIndex;
  /**
   * `retrieval` and `accounts` in one object (not enumerable: a spread of the result leaves it out).
   *
   * @deprecated Pass `retrieval` and `accounts` to `createRagdesk`; `store` goes with the next minor version.
   */
  store: Store;
}

/**
 * The stores and the index over one pool. With a `connectionString` the pool is theirs and ends
 * when all three are closed (`ragdesk.close()` closes them); a `pool` you pass stays yours to end.
 */
export async function postgres(options: PostgresOptions): Promise<PostgresAdapters> {
  const handle = openPool(options);
  handle.retain();
  handle.retain();
  const stores = await createPostgresStores(handle, options).catch(async (error: unknown) => {
    // The stores released their reference; the index never took its one.
    await handle.release();
    throw error;
  });
  const index = await createPostgresIndex(handle, options).catch(async (error: unknown) => {
    await Promise.all([stores.retrieval.close(), stores.accounts.close()]);
    throw error;
  });
  // Not enumerable, so `createRagdesk({ ...(await postgres(options)), embeddings })` passes the two
  // stores only (the deprecated `store` with them would be refused).
  return Object.defineProperty({ ...stores, index }, 'store', { value: joinedStore(stores), enumerable: false }) as PostgresAdapters;
}
