import type { Implementation } from '../kit/guarded-methods.js';
import type { UploadRecord, UploadStore } from '../../src/ports/store.js';
import type { SqliteDatabase } from './database.js';
import { conflict } from './record-queries.js';
import { newUploadValues, UPLOAD_COLUMNS, uploadFromRow, type UploadRow } from '../kit/upload-rows.js';

const COLUMNS = UPLOAD_COLUMNS.join(', ');

/**
 * Upload links. A file is at most the link's `maxBytes` (10 MiB by default), written and read as
 * one blob: small enough that one statement is a short pause, unlike datasource files, which are
 * stored in parts (stored-files.ts).
 */
export function uploadQueries(db: SqliteDatabase) {
  const insert = db.prepare(`INSERT INTO uploads (${COLUMNS}) VALUES (${UPLOAD_COLUMNS.map(() => '?').join(', ')})`);
  const select = db.prepare(`SELECT ${COLUMNS} FROM uploads WHERE id = ?`);
  // The conditions make the write happen once: a second upload, or one after the deadline, changes nothing.
  const complete = db.prepare(
    'UPDATE uploads SET bytes = ?, size = ?, uploaded_at = ? WHERE id = ? AND uploaded_at IS NULL AND upload_before > ?',
  );
  const selectBytes = db.prepare('SELECT bytes FROM uploads WHERE id = ? AND uploaded_at IS NOT NULL');
  const deleteBefore = db.prepare('DELETE FROM uploads WHERE keep_until < ?');

  return {
    createUpload(record: UploadRecord): void {
      if (select.get(record.id) !== undefined) throw conflict('upload', record.id);
      insert.run(...newUploadValues(record));
    },
    getUpload(id: string): UploadRecord | null {
      const row = select.get(id) as UploadRow | undefined;
      return row === undefined ? null : uploadFromRow(row);
    },
    completeUpload(id: string, upload: { bytes: Uint8Array; at: string }): UploadRecord | null {
      const bytes = Buffer.from(upload.bytes.buffer, upload.bytes.byteOffset, upload.bytes.byteLength);
      const changed = complete.run(bytes, upload.bytes.byteLength, upload.at, id, upload.at).changes;
      if (changed !== 1) return null;
      return uploadFromRow(select.get(id) as UploadRow);
    },
    getUploadBytes(id: string): Uint8Array | null {
      const row = selectBytes.get(id) as { bytes: Buffer | null } | undefined;
      return row?.bytes ? new Uint8Array(row.bytes) : null;
    },
    deleteUploadsBefore(cutoff: string): number {
      return deleteBefore.run(cutoff).changes;
    },
  } satisfies Implementation<UploadStore>;
}
