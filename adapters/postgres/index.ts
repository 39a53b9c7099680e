/**
 * The Postgres adapter (`ragdesk/postgres`): the Store on Postgres and the VectorIndex on pgvector,
 * over one `pg` pool, for several app instances sharing one database.
 *
 *   const { store, index } = await postgres({ connectionString: process.env.DATABASE_URL });
 *   const ragdesk = createRagdesk({ store, index, embeddings });
 */
import type { Store } from '../../src/ports/store.js';
import type { VectorIndex } from '../../src/ports/vector-index.js';
import { openPool, type PostgresConnectionOptions } from './connection.js';
import { createPostgresIndex } from './postgres-index.js';
import { createPostgresStore, type PostgresCommonOptions } from './postgres-store.js';
import type { LexicalSearchLimits } from './term-plan.js';
import type { HnswOptions } from './vector-search.js';

export { postgresStore, type PostgresStoreOptions, type PostgresCommonOptions } from './postgres-store.js';
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

/**
 * The store and the index over one pool. With a `connectionString` the pool is theirs and ends
 * when both are closed (`ragdesk.close()` closes both); a `pool` you pass stays yours to end.
 */
export async function postgres(options: PostgresOptions): Promise<{ store: Store; index: VectorIndex }> {
  const handle = openPool(options);
  handle.retain();
  handle.retain();
  const store = await createPostgresStore(handle, options).catch(async (error: unknown) => {
    // The store released its own reference; the index never took its one.
    await handle.release();
    throw error;
  });
  const index = await createPostgresIndex(handle, options).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  return { store, index };
}
