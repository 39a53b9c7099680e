import type pg from 'pg';
import type { UploadRecord } from '../../src/ports/store.js';
import { selectRow, sqlState } from './connection.js';
import { conflict } from './record-queries.js';

const COLUMNS = [
  'id',
  'secret_hash',
  'owner_id',
  'agent_id',
  'conversation_id',
  'visitor_id',
  'file_name',
  'mime_type',
  'max_bytes',
  'created_at',
  'upload_before',
  'keep_until',
  'uploaded_at',
  'size',
] as const;
const SELECT = COLUMNS.join(', ');

interface UploadRow {
  id: string;
  secret_hash: string;
  owner_id: string | null;
  agent_id: string;
  conversation_id: string;
  visitor_id: string | null;
  file_name: string;
  mime_type: string;
  max_bytes: string | number;
  created_at: string;
  upload_before: string;
  keep_until: string;
  uploaded_at: string | null;
  size: string | number | null;
}

function toRecord(row: UploadRow): UploadRecord {
  return {
    id: row.id,
    secretHash: row.secret_hash,
    ownerId: row.owner_id,
    agentId: row.agent_id,
    conversationId: row.conversation_id,
    visitorId: row.visitor_id,
    fileName: row.file_name,
    mimeType: row.mime_type,
    maxBytes: Number(row.max_bytes),
    createdAt: row.created_at,
    uploadBefore: row.upload_before,
    keepUntil: row.keep_until,
    uploadedAt: row.uploaded_at,
    size: row.size === null ? null : Number(row.size),
  };
}

/** Upload links: records and their bytes in one row (a file is at most a few MiB). */
export function uploadQueries(pool: pg.Pool, s: string) {
  return {
    async createUpload(record: UploadRecord): Promise<void> {
      try {
        await pool.query(`INSERT INTO ${s}.uploads (${SELECT}) VALUES (${COLUMNS.map((_, index) => `$${index + 1}`).join(', ')})`, [
          record.id,
          record.secretHash,
          record.ownerId,
          record.agentId,
          record.conversationId,
          record.visitorId,
          record.fileName,
          record.mimeType,
          record.maxBytes,
          record.createdAt,
          record.uploadBefore,
          record.keepUntil,
          null,
          null,
        ]);
      } catch (error) {
        if (sqlState(error) === '23505') throw conflict('upload', record.id);
        throw error;
      }
    },
    async getUpload(id: string): Promise<UploadRecord | null> {
      const row = await selectRow<UploadRow>(pool, `SELECT ${SELECT} FROM ${s}.uploads WHERE id = $1`, [id]);
      return row === undefined ? null : toRecord(row);
    },
    async completeUpload(id: string, upload: { bytes: Uint8Array; at: string }): Promise<UploadRecord | null> {
      // One statement: a second upload, or one after the deadline, matches no row.
      const row = await selectRow<UploadRow>(
        pool,
        `UPDATE ${s}.uploads SET bytes = $1, size = $2, uploaded_at = $3
         WHERE id = $4 AND uploaded_at IS NULL AND upload_before > $3 RETURNING ${SELECT}`,
        [Buffer.from(upload.bytes.buffer, upload.bytes.byteOffset, upload.bytes.byteLength), upload.bytes.byteLength, upload.at, id],
      );
      return row === undefined ? null : toRecord(row);
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
  };
}
