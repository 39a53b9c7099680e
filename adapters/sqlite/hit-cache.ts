/**
 * The raw rows of search hits read before (a chunk's hit columns and its datasource's citation
 * columns, see `getChunkHits` in chunk-queries.ts), kept for the next queries that return the same
 * chunks. Reading a top 100's rows was the largest share of such a query (~0.35 ms of CPU on
 * SciFact, a third of it the text alone), and queries over one datastore return many of the same
 * chunks. Rows are kept as SQLite gave them (strings and numbers), so every read builds fresh
 * records from them, as an uncached read would.
 *
 * Correct under writes by construction: before each use the cache compares the database's change
 * stamp (`total_changes()` of this connection, which counts every row an INSERT, UPDATE or DELETE
 * touched here, cascades included, and `PRAGMA data_version`, which moves when another connection
 * commits) with the stamp it was filled under, and empties itself when they differ. Any write to
 * the file therefore empties it, unrelated ones too (a conversation message): the cache helps a
 * run of queries between writes.
 *
 * Bounded by an estimate of its bytes (a character takes one byte in a string V8 stores as Latin-1,
 * two otherwise; plus a fixed cost per row); the least recently used rows go first.
 */
import type { SqliteDatabase, SqliteStatement } from './database.js';

/** Fixed estimate per cached row: the Map entry, the row array and the numbers in it. */
const ROW_OVERHEAD_BYTES = 160;

export class HitCache {
  private readonly rows = new Map<string, { row: readonly unknown[]; bytes: number }>();
  private bytes = 0;
  private filledUnder = '';
  private readonly stamp: SqliteStatement;

  constructor(
    db: SqliteDatabase,
    private readonly budget: number,
  ) {
    this.stamp = db.prepare('SELECT total_changes(), data_version FROM pragma_data_version').raw(true);
  }

  /** Empties the cache when the database changed since it was filled. Call before each use. */
  check(): void {
    const [changes, version] = this.stamp.get() as [number, number];
    const stamp = `${changes}:${version}`;
    if (stamp === this.filledUnder) return;
    this.rows.clear();
    this.bytes = 0;
    this.filledUnder = stamp;
  }

  /** The cached row of a chunk id, now the most recently used. */
  get(id: string): readonly unknown[] | undefined {
    const entry = this.rows.get(id);
    if (entry === undefined) return undefined;
    this.rows.delete(id);
    this.rows.set(id, entry);
    return entry.row;
  }

  put(id: string, row: readonly unknown[]): void {
    let bytes = ROW_OVERHEAD_BYTES + stringBytes(id);
    for (const value of row) if (typeof value === 'string') bytes += stringBytes(value);
    if (bytes > this.budget) return;
    const previous = this.rows.get(id);
    if (previous !== undefined) {
      this.rows.delete(id);
      this.bytes -= previous.bytes;
    }
    this.rows.set(id, { row, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.rows) {
      if (this.bytes <= this.budget) break;
      this.rows.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }

  /** Rows and estimated bytes held, for tests and diagnostics. */
  get size(): { rows: number; bytes: number } {
    return { rows: this.rows.size, bytes: this.bytes };
  }
}

/** What V8 keeps for a string's characters: one byte each when all are Latin-1, else two. */
function stringBytes(value: string): number {
  return BEYOND_LATIN1.test(value) ? value.length * 2 : value.length;
}

// eslint-disable-next-line no-control-regex -- the whole Latin-1 range, control characters included
const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;
