import type pg from 'pg';
import type { UploadRecord, UploadStore } from '../../src/ports/store.js';
import type { Implementation } from '../kit/guarded-methods.js';
import { selectRow, sqlState } from './connection.js';
import { conflict } from './record-queries.js';
import { newUploadValues, UPLOAD_COLUMNS, uploadFromRow, type UploadRow } from '../kit/upload-rows.js';

const SELECT = UPLOAD_COLUMNS.join(', ');

/** Upload links: records and their bytes in one row (a file is at most a few MiB). */
export function uploadQueries(pool: pg.Pool, s: string) {
  return {
    async createUpload(record: UploadRecord): Promise<void> {
      try {
        await pool.query(
          `INSERT INTO ${s}.uploads (${SELECT}) VALUES (${UPLOAD_COLUMNS.map((_, index) => `$${index + 1}`).join(', ')})`,
          newUploadValues(record),
        );
      } catch (error) {
        if (sqlState(error) === '23505') throw conflict('upload', record.id);
        throw error;
      }
    },
    async getUpload(id: string): Promise<UploadRecord | null> {
      const row = await selectRow<UploadRow>(pool, `SELECT ${SELECT} FROM ${s}.uploads WHERE id = $1`, [id]);
      return row === undefined ? null : uploadFromRow(row);
    },
    async completeUpload(id: string, upload: { bytes: Uint8Array; at: string }): Promise<UploadRecord | null> {
      // One statement: a second upload, or one after the deadline, matches no row.
      const row = await selectRow<UploadRow>(
        pool,
        `UPDATE ${s}.uploads SET bytes = $1, size = $2, uploaded_at = $3
         WHERE id = $4 AND uploaded_at IS NULL AND upload_before > $3 RETURNING ${SELECT}`,
        [Buffer.from(upload.bytes.buffer, upload.bytes.byteOffset, upload.bytes.byteLength), upload.bytes.byteLength, upload.at, id],
      );
      return row === undefined ? null : uploadFromRow(row);
    },
    async getUploadBytes(id: string): Promise<Uint8Array | null> {
      const row = await selectRow<{ bytes: Buffer | null }>(
        pool,
        `SELECT bytes FROM ${s}.uploads WHERE id = $1 AND uploaded_at IS NOT NULL`,
        [id],
      );
      return row?.bytes ? new Uint8Array(row.bytes) : null;
    },
    async deleteUploadsBefore(cutoff: string): Promise<number> {
      return (await pool.query(`DELETE FROM ${s}.uploads WHERE keep_until < $1`, [cutoff])).rowCount ?? 0;
    },
  } satisfies Implementation<UploadStore>;
}
