import type { Store, StorePair } from '../../src/ports/store.js';
import { joinedStore } from '../kit/joined-store.js';
import { choiceOption, integerOption } from '../kit/option-checks.js';
import type { SqliteDatabase } from './database.js';
import { DEFAULT_LEXICAL_OPTIONS, type LexicalSearchOptions } from './lexical-search.js';
import { sqliteAccountStore } from './sqlite-account-store.js';
import { openSqliteConnection } from './sqlite-connection.js';
import { sqliteRetrievalStore } from './sqlite-retrieval-store.js';

/**
 * See `hitCacheBytes`: off by default. An agent's turn writes its conversation, which empties the
 * cache, so a chat service would fill it for nothing; and the 100k-chunk memory goal
 * (docs/decisions/017-memory-at-100k.md) has less room than the 8 MiB a useful cache takes.
 */
const DEFAULT_HIT_CACHE_BYTES = 0;

interface CommonOptions {
  /** Milliseconds a write waits for another connection's lock. Default 5000. */
  busyTimeoutMs?: number;
  /** bm25 parameters and the query-length cap of `searchText` (see {@link LexicalSearchOptions}). */
  lexical?: Partial<LexicalSearchOptions>;
  /**
   * Where WAL checkpoints run for a database file the stores open themselves: `worker` (default) on
   * a worker thread with its own connection, so a commit never stalls the event loop copying the
   * WAL; `inline` leaves them to SQLite, inside the commit that fills the WAL (see checkpointer.ts).
   * A database handed over with `database` always keeps its owner's settings.
   */
  checkpoints?: 'worker' | 'inline';
  /**
   * Bytes (estimated) of the rows of recent search hits kept in memory, so a query whose hits were
   * read before skips reading them again. Emptied by any write to the database. Default 0 (off);
   * 8 MiB holds most of a 5,000-abstract corpus.
   */
  hitCacheBytes?: number;
}

/** Where the stores keep their data: a file path (`:memory:` for a throwaway database) or an open database. */
export type SqliteStoreOptions = CommonOptions &
  (
    | { path: string; database?: never }
    | {
        /**
         * A better-sqlite3 `Database` (or anything with the same methods). The stores configure
         * it (WAL, foreign keys, ...) and migrate it, but do not close it: its owner does.
         */
        database: SqliteDatabase;
        path?: never;
      }
  );

/**
 * The retrieval store and the account store on one SQLite database (better-sqlite3), over one
 * connection: records, chunks with their vectors, status history, uploaded files and sync jobs on
 * one side, agents, conversations, keys, usage and upload links on the other, in one file. The
 * connection closes when both stores are closed (`ragdesk.close()` closes both).
 */
export function sqliteStores(options: SqliteStoreOptions): StorePair {
  const checkpoints = choiceOption('sqliteStores', 'checkpoints', options.checkpoints, ['worker', 'inline'], 'worker');
  const hitCacheBytes = integerOption('sqliteStores', 'hitCacheBytes', options.hitCacheBytes, DEFAULT_HIT_CACHE_BYTES, 0);
  const connection = openSqliteConnection({ ...options, checkpoints });
  // Held while the stores are built, so a failure in between releases whatever was opened.
  connection.retain();
  try {
    const retrieval = sqliteRetrievalStore(connection, { ...DEFAULT_LEXICAL_OPTIONS, ...options.lexical }, { hitCacheBytes });
    const accounts = sqliteAccountStore(connection);
    return { retrieval, accounts };
  } finally {
    void connection.release();
  }
}

/**
 * Both SQLite stores in one object.
 *
 * @deprecated Use {@link sqliteStores} and pass `retrieval` and `accounts` to `createRagdesk`.
 */
export function sqliteStore(options: SqliteStoreOptions): Store {
  return joinedStore(sqliteStores(options));
}
