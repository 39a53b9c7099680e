import { RagdeskError } from '../../src/errors.js';
import type { Store, StorePair } from '../../src/ports/store.js';
import type { MethodGuard } from '../kit/guarded-methods.js';
import { joinedStore } from '../kit/joined-store.js';
import { openPool, quoteIdentifier, translateError, type PoolHandle, type PostgresConnectionOptions } from './connection.js';
import { postgresAccountStore } from './postgres-account-store.js';
import { postgresRetrievalStore } from './postgres-retrieval-store.js';
import { DEFAULT_SCHEMA, migrate } from './schema.js';
import { DEFAULT_LEXICAL_LIMITS, type LexicalSearchLimits } from './term-plan.js';

/** Settings shared by the stores and the index. */
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
 * The retrieval store and the account store on one Postgres database (`pg`), over one pool: records,
 * chunks with their vectors, full-text search, status history, uploaded files and sync jobs on one
 * side; agents, conversations, API keys, usage counters and upload links on the other. With a
 * `connectionString` the pool is theirs and ends when both are closed; a `pool` you pass stays
 * yours to end.
 *
 * Creates (or upgrades) the tables before resolving. Needs no Postgres extension; the vector index
 * (`postgresIndex`) needs pgvector.
 */
export async function postgresStores(options: PostgresStoreOptions): Promise<StorePair> {
  const handle = openPool(options);
  handle.retain();
  return createPostgresStores(handle, options);
}

/**
 * Both Postgres stores in one object.
 *
 * @deprecated Use {@link postgresStores} and pass `retrieval` and `accounts` to `createRagdesk`.
 */
export async function postgresStore(options: PostgresStoreOptions): Promise<Store> {
  return joinedStore(await postgresStores(options));
}

/** The stores over a pool handle (see `postgres()`), after migrating the schema; they take over the caller's reference. */
export async function createPostgresStores(
  handle: PoolHandle,
  options: PostgresCommonOptions & { lexicalLimits?: Partial<LexicalSearchLimits> },
): Promise<StorePair> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  try {
    await migrate(handle.pool, schema);
  } catch (error) {
    await handle.release();
    throw translateError(error, 'opening the Postgres store');
  }
  const s = quoteIdentifier(schema);
  const guardFor = (isClosed: () => boolean): MethodGuard => ({
    before() {
      if (isClosed()) throw new RagdeskError('closed', 'the Postgres store is closed');
    },
    translate: (error, action) => translateError(error, action),
  });
  const retrieval = postgresRetrievalStore(handle, s, { ...DEFAULT_LEXICAL_LIMITS, ...options.lexicalLimits }, guardFor);
  const accounts = postgresAccountStore(handle, s, guardFor);
  // Each store holds its own reference now.
  await handle.release();
  return { retrieval, accounts };
}
