import type { AccountStore } from '../ports/store.js';
import { UPLOAD_ID } from './upload-service.js';

/** A file an attachment names, read from the account store. */
export interface UploadedFile {
  bytes: Uint8Array;
  mimeType: string;
}

/** The conversation a query is in, as far as upload links care. */
export interface UploadScope {
  agentId: string;
  /** The conversation the query continues, or null when it starts one. */
  continuedConversationId: string | null;
  /** The id a first message sent (the reference's widget makes its links for it), when it starts one. */
  requestedConversationId: string | undefined;
  visitorId: string;
  now: () => Date;
}

const UPLOAD_PATH = /\/uploads\/(rdu_[A-Za-z0-9_-]{22})$/;

/**
 * Reads an attachment whose URL is one of this instance's upload links from the account store, without
 * any network request. Returns null when the URL is no upload link (it is then fetched as usual),
 * a warning when it is one this query may not read, else the file.
 *
 * Which host the URL names does not matter (a proxy may rewrite it): the path ending in
 * `/uploads/rdu_…` does, and such a URL is never fetched. The link must be for this agent and for
 * the conversation: the one continued, or, for a first message, the id that message sent, provided
 * the agent has no conversation with that id (so a link cannot be carried into someone else's conversation).
 * Unknown, expired, not yet uploaded and foreign links get the same warning.
 */
export async function readUploadedAttachment(store: AccountStore, url: string, scope: UploadScope): Promise<UploadedFile | string | null> {
  const id = uploadIdOf(url);
  if (id === null) return null;
  const refused = 'its upload link is unknown, expired, not uploaded, or for another conversation';
  const record = await store.getUpload(id);
  if (record === null || record.uploadedAt === null || scope.now().toISOString() >= record.keepUntil) return refused;
  if (record.agentId !== scope.agentId) return refused;
  if (record.visitorId !== null && record.visitorId !== scope.visitorId) return refused;
  if (scope.continuedConversationId !== null) {
    if (record.conversationId !== scope.continuedConversationId) return refused;
  } else {
    if (record.conversationId !== scope.requestedConversationId) return refused;
    if ((await store.getConversation(record.agentId, record.conversationId)) !== null) return refused;
  }
  const bytes = await store.getUploadBytes(id);
  return bytes === null ? refused : { bytes, mimeType: record.mimeType };
}

function uploadIdOf(url: string): string | null {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return null;
  }
  const id = UPLOAD_PATH.exec(path)?.[1];
  return id !== undefined && UPLOAD_ID.test(id) ? id : null;
}
