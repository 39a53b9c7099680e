import { randomInt } from 'node:crypto';
import { notFound, RagdeskError } from '../../src/errors.js';
import type { StoredFile } from '../../src/ports/store.js';
import { inTransaction, type SqliteDatabase } from './database.js';
import type { RecordQueries } from './record-queries.js';
import { nextTurn } from '../../src/util/next-turn.js';

/**
 * Uploaded files of datasources, stored in parts of {@link PART_BYTES} written and read one short
 * transaction at a time, with a macrotask between parts. better-sqlite3 is synchronous: one
 * statement binding or reading a 49 MB blob held the event loop for 0.8 s (write) and 1.1 s
 * (read) on the 2-core benchmark machine; a 1 MiB part takes a few milliseconds.
 *
 * Crash consistency: the parts of an upload are written under a fresh random `generation`, and only
 * the last, short transaction makes them the datasource's file (the `datasource_files` row names
 * the generation, and the parts of any other generation of the datasource are deleted in the same
 * transaction). A crash before that step leaves the previous file whole and some unreferenced
 * parts, which the next upload of the datasource, or its deletion (cascade), removes. A reader that
 * finds a part gone (the file was replaced while it read) starts over from the new row.
 *
 * Rows written before parts existed keep their bytes in `datasource_files.bytes` (generation NULL)
 * and are read in slices of the blob the same way.
 */
export const PART_BYTES = 1024 * 1024;
/** Restarts of a read whose file is replaced under it, before giving up with a conflict. */
const MAX_READ_ATTEMPTS = 5;

interface FileRow {
  mime_type: string;
  file_name: string | null;
  generation: number | null;
  byte_length: number | null;
}

/**
 * `beforeStep` runs before every statement (the store refuses after close there, and notes the
 * write for its checkpointer).
 */
export function storedFiles(db: SqliteDatabase, records: RecordQueries, beforeStep: () => void) {
  const insertPart = db.prepare('INSERT INTO datasource_file_parts (datasource_id, generation, part, bytes) VALUES (?, ?, ?, ?)');
  const countParts = db.prepare('SELECT count(*) AS count FROM datasource_file_parts WHERE datasource_id = ? AND generation = ?');
  const deleteOtherParts = db.prepare('DELETE FROM datasource_file_parts WHERE datasource_id = ? AND generation IS NOT ?');
  const deleteParts = db.prepare('DELETE FROM datasource_file_parts WHERE datasource_id = ? AND generation = ?');
  const upsertFile = db.prepare(
    `INSERT INTO datasource_files (datasource_id, mime_type, file_name, bytes, generation, byte_length) VALUES (?, ?, ?, X'', ?, ?)
     ON CONFLICT (datasource_id) DO UPDATE SET mime_type = excluded.mime_type, file_name = excluded.file_name,
       bytes = X'', generation = excluded.generation, byte_length = excluded.byte_length`,
  );
  const selectFile = db.prepare('SELECT mime_type, file_name, generation, byte_length FROM datasource_files WHERE datasource_id = ?');
  const selectPart = db.prepare('SELECT bytes FROM datasource_file_parts WHERE datasource_id = ? AND generation = ? AND part = ?');
  // Files stored before parts: the blob in slices (substr counts bytes on a blob, from 1).
  const selectLegacyLength = db.prepare(
    'SELECT length(bytes) AS length FROM datasource_files WHERE datasource_id = ? AND generation IS NULL',
  );
  const selectLegacySlice = db.prepare(
    'SELECT substr(bytes, ?, ?) AS bytes FROM datasource_files WHERE datasource_id = ? AND generation IS NULL',
  );

  async function put(datasourceId: string, file: StoredFile): Promise<void> {
    beforeStep();
    if (records.getDatasource(datasourceId) === null) throw notFound('datasource', datasourceId);
    const generation = randomInt(1, 2 ** 47);
    const bytes = file.bytes;
    const parts = Math.ceil(bytes.byteLength / PART_BYTES);
    try {
      for (let part = 0; part < parts; part += 1) {
        await nextTurn();
        beforeStep();
        const start = part * PART_BYTES;
        const end = Math.min(bytes.byteLength, start + PART_BYTES);
        insertPart.run(datasourceId, generation, part, Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start));
      }
      await nextTurn();
      beforeStep();
      inTransaction(db, () => {
        if (records.getDatasource(datasourceId) === null) throw notFound('datasource', datasourceId);
        // Another upload of the same datasource finished meanwhile and removed these parts.
        if ((countParts.get(datasourceId, generation) as { count: number }).count !== parts) {
          throw new RagdeskError('conflict', `the file of datasource ${datasourceId} was replaced while it was stored`);
        }
        upsertFile.run(datasourceId, file.mimeType, file.fileName, generation, bytes.byteLength);
        deleteOtherParts.run(datasourceId, generation);
      });
    } catch (error) {
      // Best effort: parts left behind are garbage the next upload or the deletion removes.
      try {
        deleteParts.run(datasourceId, generation);
      } catch {
        // the store may be closed
      }
      // A part insert fails on its foreign key when the datasource was deleted meanwhile.
      if (records.getDatasource(datasourceId) === null) throw notFound('datasource', datasourceId);
      throw error;
    }
  }

  async function get(datasourceId: string): Promise<StoredFile | null> {
    for (let attempt = 0; attempt < MAX_READ_ATTEMPTS; attempt += 1) {
      beforeStep();
      const row = selectFile.get(datasourceId) as FileRow | undefined;
      if (row === undefined) return null;
      const bytes =
        row.generation === null ? await readLegacy(datasourceId) : await readParts(datasourceId, row.generation, row.byte_length ?? 0);
      if (bytes !== null) return { mimeType: row.mime_type, fileName: row.file_name, bytes };
    }
    throw new RagdeskError('conflict', `the file of datasource ${datasourceId} kept changing while it was read`);
  }

  /** The file's bytes, or null when a part is gone (replaced meanwhile: read again). */
  async function readParts(datasourceId: string, generation: number, byteLength: number): Promise<Uint8Array | null> {
    const bytes = new Uint8Array(byteLength);
    for (let offset = 0, part = 0; offset < byteLength; part += 1) {
      await nextTurn();
      beforeStep();
      const row = selectPart.get(datasourceId, generation, part) as { bytes: Buffer } | undefined;
      if (row === undefined) return null;
      bytes.set(row.bytes, offset);
      offset += row.bytes.byteLength;
    }
    return bytes;
  }

  async function readLegacy(datasourceId: string): Promise<Uint8Array | null> {
    const length = (selectLegacyLength.get(datasourceId) as { length: number } | undefined)?.length;
    if (length === undefined) return null;
    const bytes = new Uint8Array(length);
    for (let offset = 0; offset < length; offset += PART_BYTES) {
      await nextTurn();
      beforeStep();
      const row = selectLegacySlice.get(offset + 1, PART_BYTES, datasourceId) as { bytes: Buffer } | undefined;
      if (row === undefined) return null;
      bytes.set(row.bytes, offset);
    }
    return bytes;
  }

  return { put, get };
}
