/**
 * The Store conformance suite against Postgres, over the wire with the `pg` client: on PGlite
 * always, and on a real PostgreSQL server when RAGDESK_TEST_PG_URL names one (CI starts Debian's).
 * The server run is where "several connections at once" is real: PGlite runs one query at a time.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { postgresStores } from '../../adapters/postgres/index.js';
import type { StorePair } from '../../src/ports/store.js';
import type { StoreHarness } from '../../src/testing/store-harness.js';
import { describeAccountStoreConformance, describeRetrievalStoreConformance } from '../../src/testing/store-conformance.js';
import { freshSchema, serverPostgresUrl, startPgliteServer, type PgliteServer } from '../helpers/pglite-server.js';

/**
 * One schema per suite on one shared pool, emptied before each test (TRUNCATE is much cheaper than
 * migrating a new schema every time); `inspect` counts rows with the adapter's own tables.
 */
function postgresHarness<K extends keyof StorePair>(
  pool: () => pg.Pool,
  side: K,
): StoreHarness<StorePair[K]> & { dispose?(): Promise<void> } {
  const schema = freshSchema(`store_${side}`);
  /** One store of a pair; the other is closed at once (the pool is the suite's). */
  const open = async () => {
    const pair = await postgresStores({ pool: pool(), schema });
    await (side === 'retrieval' ? pair.accounts : pair.retrieval).close();
    return pair[side];
  };
  const count = async (sql: string, ...params: string[]): Promise<number> => {
    const result = await pool().query<{ count: string }>(sql.replaceAll('S.', `${pg.escapeIdentifier(schema)}.`), params);
    return Number(result.rows[0]?.count ?? 0);
  };
  return {
    async create() {
      const store = await open();
      const { rows } = await pool().query<{ tables: string }>(
        `SELECT string_agg(format('%I.%I', schemaname, tablename), ', ') AS tables FROM pg_tables
         WHERE schemaname = $1 AND tablename <> 'schema_migrations'`,
        [schema],
      );
      await pool().query(`TRUNCATE ${rows[0]!.tables} RESTART IDENTITY CASCADE`);
      return store;
    },
    async reopen() {
      return open();
    },
    inspect: {
      chunkRows: (id) => count('SELECT count(*) FROM S.chunks WHERE datasource_id = $1', id),
      datasourceRows: (id) => count('SELECT count(*) FROM S.datasources WHERE datastore_id = $1', id),
      fileRows: (id) => count('SELECT count(*) FROM S.datasource_files WHERE datasource_id = $1', id),
      jobRows: (id) => count('SELECT count(*) FROM S.jobs WHERE datasource_id = $1', id),
      statusEventRows: (id) => count('SELECT count(*) FROM S.status_events WHERE datasource_id = $1', id),
      conversationRows: (id) => count('SELECT count(*) FROM S.conversations WHERE agent_id = $1', id),
      messageRows: (id) => count('SELECT count(*) FROM S.messages WHERE conversation_id = $1', id),
    },
    async dispose() {
      await pool().query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
    },
  };
}

let pglite: PgliteServer | undefined;
beforeAll(async () => {
  pglite = await startPgliteServer();
});
afterAll(async () => {
  await pglite?.close();
});
// (PGlite's database lives in memory and goes with the server; the server run drops its schema.)
describeRetrievalStoreConformance(
  'postgres (PGlite over the wire)',
  postgresHarness(() => pglite!.pool, 'retrieval'),
);
describeAccountStoreConformance(
  'postgres (PGlite over the wire)',
  postgresHarness(() => pglite!.pool, 'accounts'),
);

const serverUrl = serverPostgresUrl('postgres store conformance on a server');
if (serverUrl !== undefined) {
  let serverPool: pg.Pool | undefined;
  beforeAll(() => {
    serverPool = new pg.Pool({ connectionString: serverUrl, max: 10 });
  });
  const retrieval = postgresHarness(() => serverPool!, 'retrieval');
  const accounts = postgresHarness(() => serverPool!, 'accounts');
  afterAll(async () => {
    await retrieval.dispose?.();
    await accounts.dispose?.();
    await serverPool?.end();
  });
  describeRetrievalStoreConformance('postgres (PostgreSQL server)', retrieval);
  describeAccountStoreConformance('postgres (PostgreSQL server)', accounts);
} else {
  describe('Store conformance: postgres (PostgreSQL server)', () => {
    it.skip('needs RAGDESK_TEST_PG_URL (a PostgreSQL server; CI starts one)', () => undefined);
  });
}
