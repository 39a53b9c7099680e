import type { UploadRecord } from '../../src/ports/store.js';

/**
 * Rows of upload links, and their records, for the SQL stores (SQLite and Postgres share the column
 * names; Postgres answers bigint columns as strings). The bytes live in a column of their own, read
 * only when a query asks for the file.
 */
export const UPLOAD_COLUMNS = [
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

export interface UploadRow {
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

export function uploadFromRow(row: UploadRow): UploadRecord {
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

/** A new link's values in `UPLOAD_COLUMNS` order: not uploaded yet, so no time and no size. */
export function newUploadValues(record: UploadRecord): unknown[] {
  return [
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
  ];
}
