import type { UploadRecord } from '../../src/ports/store.js';
import { conflict } from './record-copies.js';

/** Upload links of the memory store: records and bytes in Maps, copied in and out. */
export function memoryUploads() {
  const records = new Map<string, UploadRecord>();
  const files = new Map<string, Uint8Array>();

  return {
    createUpload(record: UploadRecord): void {
      if (records.has(record.id)) throw conflict('upload', record.id);
      records.set(record.id, { ...record, uploadedAt: null, size: null });
    },

    getUpload(id: string): UploadRecord | null {
      const record = records.get(id);
      return record === undefined ? null : { ...record };
    },

    completeUpload(id: string, upload: { bytes: Uint8Array; at: string }): UploadRecord | null {
      const record = records.get(id);
      if (record === undefined || record.uploadedAt !== null || upload.at >= record.uploadBefore) return null;
      const next = { ...record, uploadedAt: upload.at, size: upload.bytes.byteLength };
      records.set(id, next);
      files.set(id, upload.bytes.slice());
      return { ...next };
    },

    getUploadBytes(id: string): Uint8Array | null {
      return files.get(id)?.slice() ?? null;
    },

    deleteUploadsBefore(cutoff: string): number {
      let deleted = 0;
      for (const [id, record] of records) {
        if (record.keepUntil < cutoff) {
          records.delete(id);
          files.delete(id);
          deleted += 1;
        }
      }
      return deleted;
    },
  };
}
