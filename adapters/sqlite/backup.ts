/**
 * Online backup of the SQLite store file with SQLite's backup API (better-sqlite3 `db.backup`),
 * from a connection of its own, so it works beside a running instance (another process, or this
 * one) whose writes go on meanwhile.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import Database from 'better-sqlite3';
import { RagdeskError } from '../../src/errors.js';

/** Pages copied per step while nothing writes (16 MiB at the store's 16 KiB pages). */
const STEP_PAGES = 1_024;

export interface DatabaseSnapshot {
  bytes: number;
  pages: number;
  sha256: string;
  /** How often the copy started over because another connection wrote (then it copies in one step). */
  restarts: number;
  /** Each datastore of the snapshot with the chunk sequence its vector index must match. */
  datastores: { id: string; chunkSequence: number; embeddingModel: string; embeddingDimensions: number }[];
}

/**
 * Copies `source` to `target` (which must not exist) as one consistent snapshot, then checks the
 * copy (`PRAGMA quick_check`) and reads what the index files must match.
 *
 * The copy goes in steps so a large file does not hold the event loop. SQLite restarts a copy when
 * another connection writes between two steps; after the first restart the rest is copied in a
 * single step, a read transaction that (in WAL mode) does not block writers, so a busy server
 * cannot keep the backup from finishing.
 */
interface BackupProgress {
  totalPages: number;
  remainingPages: number;
  restarts: number;
}

export interface SqliteBackupOptions {
  /** Pages per step while nothing else writes (default 1024). */
  stepPages?: number;
  /** Called between steps, e.g. for a progress bar. */
  onProgress?: (progress: BackupProgress) => void;
}

export async function backupSqliteFile(source: string, target: string, options: SqliteBackupOptions = {}): Promise<DatabaseSnapshot> {
  const stepPages = Math.max(1, options.stepPages ?? STEP_PAGES);
  let db: Database.Database;
  try {
    db = new Database(source, { fileMustExist: true });
  } catch (error) {
    throw new RagdeskError('not_found', `No SQLite store at ${source}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  let restarts = 0;
  let previous = Number.POSITIVE_INFINITY;
  let wholeFile = false;
  try {
    db.pragma('busy_timeout = 5000');
    await db.backup(target, {
      progress: ({ totalPages, remainingPages }) => {
        // Each step copies at least one page, so `remaining` shrinks; when it does not, SQLite
        // started the copy over because another connection wrote.
        if (remainingPages >= previous) {
          restarts++;
          wholeFile = true;
        }
        previous = remainingPages;
        options.onProgress?.({ totalPages, remainingPages, restarts });
        return wholeFile ? Math.max(totalPages, 1) : stepPages;
      },
    });
  } catch (error) {
    throw new RagdeskError('internal', `Backing up ${source} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  } finally {
    db.close();
  }
  // The copy keeps the source's WAL flag; a rollback-journal file is self-contained (no -wal or
  // -shm beside it) and opens read-only. The store switches it back to WAL when it opens it.
  const copy = new Database(target, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
  const check = inspectSqliteFile(target);
  if (check.problems.length > 0) {
    throw new RagdeskError('internal', `The backup copy failed its check: ${check.problems.join('; ')}`, {
      details: { problems: check.problems },
    });
  }
  const { size } = await stat(target);
  return { bytes: size, pages: check.pages, sha256: await fileSha256(target), restarts, datastores: check.datastores };
}

/**
 * Opens a backup copy read-only and reports `quick_check` problems (a file that is no SQLite
 * database is one), its page count and datastores.
 */
export function inspectSqliteFile(path: string): { problems: string[]; pages: number; datastores: DatabaseSnapshot['datastores'] } {
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { fileMustExist: true, readonly: true });
    const problems = (db.pragma('quick_check', { simple: false }) as { quick_check: string }[])
      .map((row) => row.quick_check)
      .filter((result) => result !== 'ok');
    const pages = db.pragma('page_count', { simple: true }) as number;
    if (problems.length > 0) return { problems, pages, datastores: [] };
    const rows = db.prepare('SELECT id, chunk_sequence, embedding_model, embedding_dimensions FROM datastores ORDER BY pk').all() as {
      id: string;
      chunk_sequence: number;
      embedding_model: string;
      embedding_dimensions: number;
    }[];
    const datastores = rows.map((row) => ({
      id: row.id,
      chunkSequence: row.chunk_sequence,
      embeddingModel: row.embedding_model,
      embeddingDimensions: row.embedding_dimensions,
    }));
    return { problems, pages, datastores };
  } catch (error) {
    return { problems: [error instanceof Error ? error.message : String(error)], pages: 0, datastores: [] };
  } finally {
    db?.close();
  }
}

export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
