/**
 * The Store conformance suite against Postgres, over the wire with the `pg` client: on PGlite
 * always, and on a real PostgreSQL server when RAGDESK_TEST_PG_URL names one (CI starts Debian's).
 * The server run is where "several connections at once" is real: PGlite runs one query at a time.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { postgresStore } from '../../adapters/postgres/index.js';
import type { StoreHarness } from '../../src/testing/store-harness.js';
import { describeStoreConformance } from '../../src/testing/store-conformance.js';
import { freshSchema, serverPostgresUrl, startPgliteServer, type PgliteServer } from '../helpers/pglite-server.js';

/**
 * One schema per suite on one shared pool, emptied before each test (TRUNCATE is much cheaper than
 * migrating a new schema every time); `inspect` counts rows with the adapter's own tables.
 */
function postgresHarness(pool: () => pg.Pool): StoreHarness & { dispose?(): Promise<void> } {
  const schema = freshSchema('store');
  const count = async (sql: string, ...params: string[]): Promise<number> => {
    const result = await pool().query<{ count: string }>(sql.replaceAll('S.', `${pg.escapeIdentifier(schema)}.`), params);
    return Number(result.rows[0]?.count ?? 0);
  };
  return {
    async create() {
      const store = await postgresStore({ pool: pool(), schema });
      const { rows } = await pool().query<{ tables: string }>(
        `SELECT string_agg(format('%I.%I', schemaname, tablename), ', ') AS tables FROM pg_tables
         WHERE schemaname = $1 AND tablename <> 'schema_migrations'`,
        [schema],
      );
      await pool().query(`TRUNCATE ${rows[0]!.tables} RESTART IDENTITY CASCADE`);
      return store;
    },
    async reopen() {
      return postgresStore({ pool: pool(), schema });
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
describeStoreConformance(
  'postgres (PGlite over the wire)',
  postgresHarness(() => pglite!.pool),
);

const serverUrl = serverPostgresUrl('postgres store conformance on a server');
if (serverUrl !== undefined) {
  let serverPool: pg.Pool | undefined;
  beforeAll(() => {
    serverPool = new pg.Pool({ connectionString: serverUrl, max: 10 });
  });
  const harness = postgresHarness(() => serverPool!);
  afterAll(async () => {
    await harness.dispose?.();
    await serverPool?.end();
  });
  describeStoreConformance('postgres (PostgreSQL server)', harness);
} else {
  describe('Store conformance: postgres (PostgreSQL server)', () => {
    it.skip('needs RAGDESK_TEST_PG_URL (a PostgreSQL server; CI starts one)', () => undefined);
  });
}
