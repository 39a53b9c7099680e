import type { UploadRecord } from '../../src/ports/store.js';
import type { SqliteDatabase } from './database.js';
import { conflict } from './record-queries.js';

const COLUMNS =
  'id, secret_hash, owner_id, agent_id, conversation_id, visitor_id, file_name, mime_type, max_bytes, created_at, upload_before, keep_until, uploaded_at, size';

interface UploadRow {
  id: string;
  secret_hash: string;
  owner_id: string | null;
  agent_id: string;
  conversation_id: string;
  visitor_id: string | null;
  file_name: string;
  mime_type: string;
  max_bytes: number;
  created_at: string;
  upload_before: string;
  keep_until: string;
  uploaded_at: string | null;
  size: number | null;
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
    maxBytes: row.max_bytes,
    createdAt: row.created_at,
    uploadBefore: row.upload_before,
    keepUntil: row.keep_until,
    uploadedAt: row.uploaded_at,
    size: row.size,
  };
}

/**
 * Upload links. A file is at most the link's `maxBytes` (10 MiB by default), written and read as
 * one blob: small enough that one statement is a short pause, unlike datasource files, which are
 * stored in parts (stored-files.ts).
 */
export function uploadQueries(db: SqliteDatabase) {
  const insert = db.prepare(
    `INSERT INTO uploads (${COLUMNS}) VALUES (${COLUMNS.split(', ')
      .map(() => '?')
      .join(', ')})`,
  );
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
      insert.run(
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
      );
    },
    getUpload(id: string): UploadRecord | null {
      const row = select.get(id) as UploadRow | undefined;
      return row === undefined ? null : toRecord(row);
    },
    completeUpload(id: string, upload: { bytes: Uint8Array; at: string }): UploadRecord | null {
      const bytes = Buffer.from(upload.bytes.buffer, upload.bytes.byteOffset, upload.bytes.byteLength);
      const changed = complete.run(bytes, upload.bytes.byteLength, upload.at, id, upload.at).changes;
      if (changed !== 1) return null;
      return toRecord(select.get(id) as UploadRow);
    },
    getUploadBytes(id: string): Uint8Array | null {
      const row = selectBytes.get(id) as { bytes: Buffer | null } | undefined;
      return row?.bytes ? new Uint8Array(row.bytes) : null;
    },
    deleteUploadsBefore(cutoff: string): number {
      return deleteBefore.run(cutoff).changes;
    },
  };
}
