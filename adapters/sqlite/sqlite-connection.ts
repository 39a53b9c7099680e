import { RagdeskError } from '../../src/errors.js';
import type { MethodGuard } from '../kit/guarded-methods.js';
import { startCheckpointer, type Checkpointer } from './checkpointer.js';
import { configureConnection, DEFAULT_BUSY_TIMEOUT_MS, openDatabase, translateError, type SqliteDatabase } from './database.js';
import { migrate } from './schema.js';

/** How the two stores of one SQLite database get their connection. */
export interface SqliteConnectionOptions {
  /** Milliseconds a write waits for another connection's lock. Default 5000. */
  busyTimeoutMs?: number;
  /**
   * Where WAL checkpoints run for a database file the stores open themselves: `worker` (default)
   * on a worker thread with its own connection, so a commit never stalls the event loop copying
   * the WAL; `inline` leaves them to SQLite, inside the commit that fills the WAL (see
   * checkpointer.ts). A database handed over with `database` always keeps its owner's settings.
   */
  checkpoints: 'worker' | 'inline';
  path?: string;
  database?: SqliteDatabase;
}

/**
 * One migrated connection shared by a retrieval store and an account store. Each store takes a
 * reference; the connection (and its checkpointer) closes when the last one is released, so
 * `ragdesk.close()`, which closes both, ends it whichever closes first.
 */
export interface SqliteConnection {
  readonly db: SqliteDatabase;
  /** A guard for one store's methods: refuses after that store's close, counts for the checkpointer. */
  guard(isClosed: () => boolean): MethodGuard;
  /** Counts a read or write for the checkpointer. */
  noteWrite(): void;
  retain(): void;
  /** Drops one reference; the last one closes the checkpointer and, when the stores opened it, the database. */
  release(): Promise<void>;
}

export function openSqliteConnection(options: SqliteConnectionOptions): SqliteConnection {
  const ownsDatabase = options.database === undefined;
  const db = options.database ?? openDatabase(requirePath(options.path));
  try {
    configureConnection(db, options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS);
    migrate(db);
  } catch (error) {
    if (ownsDatabase) db.close();
    throw translateError(error, 'opening the SQLite store');
  }
  const checkpointer = ownsDatabase && options.checkpoints === 'worker' ? checkpointerFor(db, options.path) : null;
  let references = 0;
  // Reads count too: telling them apart costs more than a checkpoint that finds nothing to copy.
  const noteWrite = () => checkpointer?.noteWrite();
  return {
    db,
    noteWrite,
    guard: (isClosed) => ({
      before() {
        if (isClosed()) throw sqliteClosedError();
        noteWrite();
      },
      translate: (error, action) => translateError(error, action),
    }),
    retain() {
      references += 1;
    },
    async release() {
      references -= 1;
      if (references > 0) return;
      // The worker's connection goes first, so the main connection is the last one and its close
      // checkpoints the whole WAL and removes it.
      await checkpointer?.close();
      if (ownsDatabase) db.close();
    },
  };
}

function sqliteClosedError(): RagdeskError {
  return new RagdeskError('closed', 'the SQLite store is closed');
}

function checkpointerFor(db: SqliteDatabase, path: string | undefined): Checkpointer | null {
  // In-memory databases have no WAL; URI filenames may name one (`mode=memory`) or carry options
  // the worker's plain open would not apply.
  if (path === undefined || path === ':memory:' || path === '' || path.startsWith('file:')) return null;
  return startCheckpointer({ path, setAutocheckpoint: (pages) => db.exec(`PRAGMA wal_autocheckpoint = ${pages}`) });
}

function requirePath(path: string | undefined): string {
  if (typeof path !== 'string') {
    throw new RagdeskError('invalid_request', 'sqliteStores needs a `path` or a `database`');
  }
  return path;
}
