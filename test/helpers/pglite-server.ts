/**
 * Real Postgres for tests without a Postgres install: PGlite (Postgres compiled to WASM) with the
 * real pgvector extension, served over the Postgres wire protocol on 127.0.0.1 by pglite-socket, so
 * the adapter under test talks to it through the ordinary `pg` client exactly as to a server.
 *
 * PGlite runs one query at a time: the socket server queues queries of all connections, and an
 * open transaction holds the others back until it ends. Starting
 * one takes a few seconds, so a test file starts one and gives each test its own schema.
 */
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';

export interface PgliteServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  /** A pool on the server; ended by `close()`. */
  pool: pg.Pool;
  close(): Promise<void>;
}

export async function startPgliteServer(options: { poolSize?: number } = {}): Promise<PgliteServer> {
  const db = await PGlite.create({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 100 });
  await server.start();
  const url = `postgres://postgres@${server.getServerConn()}/postgres`;
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 8 });
  pool.on('error', () => undefined);
  let closed = false;
  return {
    url,
    pool,
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
      await server.stop();
      await db.close();
    },
  };
}

/** The server Postgres URL CI provides (Debian's PostgreSQL), or undefined with the reason printed once. */
export function serverPostgresUrl(suite: string): string | undefined {
  const url = process.env.RAGDESK_TEST_PG_URL;
  if (url === undefined || url === '') {
    console.warn(`[${suite}] skipped: RAGDESK_TEST_PG_URL is not set (CI sets it; see .ci/run and docs/postgres.md).`);
    return undefined;
  }
  return url;
}

let schemas = 0;

/** A schema name no other test of this process uses. */
export function freshSchema(prefix = 'test'): string {
  schemas += 1;
  return `${prefix}_${process.pid}_${schemas}`;
}
