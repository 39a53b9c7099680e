import { RagdeskError } from '../errors.js';
import type { ConversationRecord } from '../ports/agent-key-usage-records.js';

/** The opaque `cursor` of a conversation listing: where the last page ended, in the listing's order. */
export function encodeListCursor(last: Pick<ConversationRecord, 'updatedAt' | 'id'>): string {
  return Buffer.from(JSON.stringify([last.updatedAt, last.id]), 'utf8').toString('base64url');
}

export function decodeListCursor(cursor: string): { updatedAt: string; id: string } {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string') {
      return { updatedAt: value[0], id: value[1] };
    }
  } catch {
    // Reported below, like any other malformed cursor.
  }
  throw new RagdeskError('invalid_request', 'The cursor is not one a conversation listing gave', {
    details: { issues: [{ path: 'cursor', message: 'pass the nextCursor of the previous page' }] },
  });
}
