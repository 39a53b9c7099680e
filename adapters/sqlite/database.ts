import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { RagdeskError } from '../../src/errors.js';

/** What the store runs a prepared statement with. */
export type SqliteValue = string | number | bigint | Buffer | null;

/**
 * The part of a better-sqlite3 `Statement` the store uses. Parameters are `unknown` because the
 * driver's own typing is generic; the store only ever binds {@link SqliteValue}s.
 */
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  /**
   * Rows as arrays of values instead of objects. The hot reads of a query use it: the driver
   * builds a row object property by property, ~2.5x slower than an array for an 11-column row.
   */
  raw(toggle?: boolean): SqliteStatement;
}

/**
 * The part of a better-sqlite3 `Database` the store uses, declared structurally (as kysely does)
 * so callers can hand over their own instance and nothing here depends on the driver's classes.
 */
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): unknown;
  /** better-sqlite3 transactions: synchronous, nested calls become savepoints. */
  transaction<T>(fn: () => T): { immediate(): T };
  close(): unknown;
}

/** How long a writer waits for another connection's lock before failing with SQLITE_BUSY. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/** Opens a file (creating its directory) or an in-memory database when `path` is `:memory:`. */
export function openDatabase(path: string): SqliteDatabase {
  if (path !== ':memory:' && path !== '' && !path.startsWith('file:')) {
    mkdirSync(dirname(path), { recursive: true });
  }
  return new Database(path);
}

/** Size the WAL file is cut back to after a checkpoint lets it restart. */
export const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * Connection settings, applied to every connection (ours or the caller's). `page_size` only takes
 * effect on a file with no table yet, so it is set before anything else: 16 KiB pages hold a
 * chunk row (text + a 384-float vector) without overflow pages and made inserts ~3x faster here.
 */
export function configureConnection(db: SqliteDatabase, busyTimeoutMs: number): void {
  db.exec('PRAGMA page_size = 16384');
  // WAL lets readers (searches) run while a sync writes; NORMAL is durable across application
  // crashes and only loses the last commits on power loss, the usual pairing with WAL.
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  // A checkpoint copies the WAL into the database but leaves the file at the largest size it ever
  // reached: a burst of small commits while searches held old snapshots grew it to 127-191 MiB
  // beside a 10 MiB database, and it stayed there. Truncated to 64 MiB when the WAL restarts.
  db.exec(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  // Cascading deletes (datastore -> datasources -> chunks -> FTS rows) rely on foreign keys.
  db.exec('PRAGMA foreign_keys = ON');
  db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  // The page cache is the process's own memory (anonymous, filled by writes up to the limit), while
  // reads go through the memory map below (the OS file cache, shared and reclaimable). 8 MiB
  // (negative = KiB) holds the B-tree interiors a write touches; at 64 MiB the cache was the
  // largest native cost after the HNSW graph at 100k chunks (docs/decisions/017-memory-at-100k.md).
  db.exec('PRAGMA cache_size = -8192');
  db.exec('PRAGMA temp_store = MEMORY');
  // Reads through a memory map instead of read() calls and copies into the page cache: hydrating
  // ten search hits at 100k chunks (rows spread over a 300 MB file) took 20-40% less CPU, and
  // fewer system calls mean fewer chances to lose the CPU on a busy machine. Address space only;
  // touched pages are the OS file cache (shared), not heap.
  db.exec('PRAGMA mmap_size = 1073741824');
}

/** Runs `fn` in one write transaction (BEGIN IMMEDIATE, so it never fails half-way on a lock upgrade). */
export function inTransaction<T>(db: SqliteDatabase, fn: () => T): T {
  return db.transaction(fn).immediate();
}

/** SQLite result codes (and their extended forms) worth retrying: another connection holds a lock. */
const RETRYABLE_PREFIXES = ['SQLITE_BUSY', 'SQLITE_LOCKED'];

/**
 * Gives driver errors a stable code. Our own `RagdeskError`s pass through untouched; a unique
 * constraint is a `conflict`; anything else is `internal`, with the driver error as `cause`.
 */
export function translateError(error: unknown, action: string): RagdeskError {
  if (RagdeskError.isInstance(error)) return error;
  const code = driverCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return new RagdeskError('conflict', `${action}: ${message}`, { cause: error });
  }
  return new RagdeskError('internal', `${action}: ${message}`, {
    cause: error,
    retryable: code !== undefined && RETRYABLE_PREFIXES.some((prefix) => code.startsWith(prefix)),
    details: code === undefined ? undefined : { sqliteCode: code },
  });
}

function driverCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = error.code;
  return typeof code === 'string' ? code : undefined;
}
