import type pg from 'pg';
import { RagdeskError } from '../../src/errors.js';
import { loadPg } from './pg-module.js';

// An optional peer dependency: importing the adapter without it fails here, naming the package.
const pgClient = await loadPg();

/** What the adapter runs SQL on: a `pg.Pool` or one of its checked-out clients (inside a transaction). */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/** Where the adapter gets connections: a ready pool (the caller ends it) or settings for its own. */
export type PostgresConnectionOptions =
  | {
      /**
       * A `pg.Pool` (or anything with the same `query` / `connect`). The adapter never ends it:
       * its owner does, after closing the store and the index.
       */
      pool: pg.Pool;
      connectionString?: never;
      poolSize?: never;
    }
  | {
      /** `postgres://user:password@host:5432/database`; the adapter opens and ends its own pool. */
      connectionString: string;
      /** Connections of that pool (default 10). See docs/postgres.md "Pool sizing". */
      poolSize?: number;
      pool?: never;
    };

/** A pool shared by the store and the index of one `postgres()` call, ended when the last user lets go. */
export interface PoolHandle {
  readonly pool: pg.Pool;
  /** Takes one more reference (one per store or index using the pool). */
  retain(): void;
  /** Drops a reference; ends the pool with the last one when the adapter opened it. */
  release(): Promise<void>;
}

export const DEFAULT_POOL_SIZE = 10;

export function openPool(options: PostgresConnectionOptions): PoolHandle {
  if (options.pool !== undefined) return poolHandle(options.pool, false);
  if (typeof options.connectionString !== 'string' || options.connectionString === '') {
    throw new RagdeskError('invalid_request', 'the Postgres adapter needs a `pool` or a `connectionString`');
  }
  const pool = new pgClient.Pool({
    connectionString: options.connectionString,
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    // A process that only holds idle connections may exit; the store does not keep it alive.
    allowExitOnIdle: true,
  });
  // An idle client losing its server (restart, failover) emits on the pool; without a listener
  // Node would crash the process. The next query simply gets a fresh connection.
  pool.on('error', () => undefined);
  return poolHandle(pool, true);
}

function poolHandle(pool: pg.Pool, owned: boolean): PoolHandle {
  let references = 0;
  let ended = false;
  return {
    pool,
    retain() {
      references += 1;
    },
    async release() {
      references -= 1;
      if (references > 0 || !owned || ended) return;
      ended = true;
      await pool.end();
    },
  };
}

/** SQLSTATEs after which running the whole transaction again is the right answer. */
const RETRY_TRANSACTION = new Set(['40001', '40P01']);
const TRANSACTION_ATTEMPTS = 4;

/**
 * Runs `work` in one transaction on one connection. Deadlocks and serialization failures (another
 * instance touched the same rows) roll back and run `work` again, so `work` must only talk to the
 * database through the client it is given.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: Queryable) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        // The connection is unusable (server gone): do not hand it to the next caller.
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
      if (attempt < TRANSACTION_ATTEMPTS && RETRY_TRANSACTION.has(sqlState(error) ?? '')) continue;
      throw error;
    } finally {
      client.release(broken);
    }
  }
}

/** Rows of one statement, typed by the caller (the SQL decides the shape). */
export async function selectRows<T>(db: Queryable, text: string, values?: unknown[]): Promise<T[]> {
  return (await db.query(text, values)).rows as T[];
}

/** The first row of one statement, or undefined. */
export async function selectRow<T>(db: Queryable, text: string, values?: unknown[]): Promise<T | undefined> {
  return (await db.query(text, values)).rows[0] as T | undefined;
}

export function sqlState(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = error.code;
  return typeof code === 'string' ? code : undefined;
}

/** SQLSTATE classes where the same call may work later: connection trouble, resources, shutdown. */
const RETRYABLE_CLASSES = ['08', '40', '53', '57'];
/** Node socket errors of a server that is down or unreachable. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Gives driver errors a stable code. Our own `RagdeskError`s pass through; a unique violation is a
 * `conflict`; values Postgres refuses (a NUL character in text, NaN in a vector) are
 * `invalid_request`; everything else is `internal`, retryable when the server was unreachable.
 */
export function translateError(error: unknown, action: string): RagdeskError {
  if (RagdeskError.isInstance(error)) return error;
  const code = sqlState(error);
  const message = error instanceof Error ? error.message : String(error);
  if (code === '23505') return new RagdeskError('conflict', `${action}: ${message}`, { cause: error });
  // 22xxx: data exceptions (invalid byte sequence, NUL, numeric out of range, NaN in a vector).
  if (code !== undefined && code.startsWith('22')) {
    return new RagdeskError('invalid_request', `${action}: Postgres refused a value: ${message}`, {
      cause: error,
      details: { sqlState: code },
    });
  }
  const retryable = code !== undefined && (NETWORK_CODES.has(code) || RETRYABLE_CLASSES.some((prefix) => code.startsWith(prefix)));
  return new RagdeskError('internal', `${action}: ${message}`, {
    cause: error,
    retryable: retryable || /Connection terminated|timeout exceeded when trying to connect/i.test(message),
    details: code === undefined ? undefined : { sqlState: code },
  });
}

/** Double-quoted identifier (schema names come from options). */
export function quoteIdentifier(name: string): string {
  return pgClient.escapeIdentifier(name);
}

/** Single-quoted string literal, for the few statements that cannot take parameters. */
export function quoteLiteral(value: string): string {
  return pgClient.escapeLiteral(value);
}
