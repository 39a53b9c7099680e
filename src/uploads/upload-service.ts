import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { RagdeskContext } from '../context.js';
import { RagdeskError } from '../errors.js';
import type { UploadRecord } from '../ports/store.js';
import { uploadTypeOf, UPLOAD_TYPES } from './upload-types.js';

export interface UploadOptions {
  /** Seconds a link accepts its one upload (default 900, as the reference's signed URLs). */
  linkSeconds?: number;
  /** Seconds an uploaded file stays readable by the agent's queries (default 86,400). */
  keepSeconds?: number;
  /** Most bytes of one file (default 10 MiB, the reference widget's own limit). */
  maxBytes?: number;
  /** @internal The clock; tests move it instead of waiting. */
  now?: () => Date;
}

export interface UploadLinkRequest {
  agentId: string;
  /** The agent's owner (the upload is stored under it). */
  ownerId: string | null;
  /** The conversation the file is for: the one the message will continue, or the id a first message sends. */
  conversationId: string;
  /** Bind the link to this visitor's messages too (optional). */
  visitorId?: string | undefined;
  fileName: string;
  mimeType?: string | undefined;
}

export interface UploadLink {
  id: string;
  /** Shown once: the capability to upload, never stored (only its SHA-256 is). */
  secret: string;
  mimeType: string;
  maxBytes: number;
  uploadBefore: string;
  keepUntil: string;
}

export const UPLOAD_ID = /^rdu_[A-Za-z0-9_-]{22}$/;
const DEFAULTS = { linkSeconds: 900, keepSeconds: 86_400, maxBytes: 10 * 1024 * 1024 };

/**
 * Upload links: a place for a chat visitor's file that needs no storage service of its own. A
 * link accepts one upload of one declared type and size, before a deadline; the file is then read
 * by the agent's queries in the conversation the link was made for (see uploaded-attachments.ts),
 * and deleted a day later.
 */
export class UploadService {
  readonly linkSeconds: number;
  readonly keepSeconds: number;
  readonly maxBytes: number;
  readonly now: () => Date;

  constructor(
    private readonly context: RagdeskContext,
    options: UploadOptions = {},
  ) {
    this.linkSeconds = positive(options.linkSeconds ?? DEFAULTS.linkSeconds, 'linkSeconds');
    this.keepSeconds = positive(options.keepSeconds ?? DEFAULTS.keepSeconds, 'keepSeconds');
    this.maxBytes = positive(options.maxBytes ?? DEFAULTS.maxBytes, 'maxBytes');
    this.now = options.now ?? (() => new Date());
  }

  /** Makes one link. Throws `invalid_request` (naming `mimeType`) for a type no link is made for. */
  async createLink(request: UploadLinkRequest): Promise<UploadLink> {
    const mimeType = uploadTypeOf(request.mimeType, request.fileName);
    if (mimeType === null) {
      throw new RagdeskError('invalid_request', `Uploads take only these types: ${Object.keys(UPLOAD_TYPES).join(', ')}`, {
        details: { issues: [{ path: 'mimeType', message: 'not a type the file loaders read (images are not taken)' }] },
      });
    }
    const now = this.now();
    // Expired uploads go with the next link: no timer, and a quiet instance keeps nothing for long.
    await this.context.accounts.deleteUploadsBefore(now.toISOString());
    const secret = randomBytes(32).toString('base64url');
    const record: UploadRecord = {
      id: `rdu_${randomBytes(16).toString('base64url')}`,
      secretHash: sha256(secret),
      ownerId: request.ownerId,
      agentId: request.agentId,
      conversationId: request.conversationId,
      visitorId: request.visitorId ?? null,
      fileName: request.fileName,
      mimeType,
      maxBytes: this.maxBytes,
      createdAt: now.toISOString(),
      uploadBefore: new Date(now.getTime() + this.linkSeconds * 1000).toISOString(),
      keepUntil: new Date(now.getTime() + this.keepSeconds * 1000).toISOString(),
      uploadedAt: null,
      size: null,
    };
    await this.context.accounts.createUpload(record);
    const { id, maxBytes, uploadBefore, keepUntil } = record;
    return { id, secret, mimeType, maxBytes, uploadBefore, keepUntil };
  }

  /**
   * The one upload of a link. An unknown id and a wrong secret are the same 404; a known link
   * refuses an upload after its deadline (403, `details.reason: "expired"`) and a second upload
   * (409, `"used"`); a type other than the declared one is a 415, more bytes than allowed a 413.
   */
  async upload(id: string, secret: string, file: { bytes: Uint8Array; mimeType?: string | undefined }): Promise<UploadRecord> {
    const record = UPLOAD_ID.test(id) ? await this.context.accounts.getUpload(id) : null;
    if (record === null || !sameSecret(record.secretHash, secret)) throw unknownLink();
    const now = this.now().toISOString();
    if (record.uploadedAt !== null) throw used();
    if (now >= record.uploadBefore) throw expired();
    if (file.bytes.byteLength > record.maxBytes) {
      throw new RagdeskError('payload_too_large', `This link takes at most ${record.maxBytes} bytes`, {
        details: { limit: record.maxBytes },
      });
    }
    const sent = (file.mimeType ?? '').split(';')[0]!.trim().toLowerCase();
    if (sent !== '' && sent !== 'application/octet-stream' && sent !== record.mimeType) {
      throw new RagdeskError('unsupported_media_type', `This link takes ${record.mimeType}, not ${sent.slice(0, 100)}`, {
        details: { expected: record.mimeType },
      });
    }
    // The loaders decide from the bytes: a file they cannot read is refused now, not at question time.
    this.context.files?.inspect({ bytes: file.bytes, fileName: record.fileName, mimeType: record.mimeType });
    const done = await this.context.accounts.completeUpload(id, { bytes: file.bytes, at: now });
    if (done === null) throw used();
    return done;
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function sameSecret(storedHash: string, secret: string): boolean {
  const presented = Buffer.from(sha256(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return stored.length === presented.length && timingSafeEqual(stored, presented);
}

function unknownLink(): RagdeskError {
  return new RagdeskError('not_found', 'Unknown upload link');
}

function expired(): RagdeskError {
  return new RagdeskError('forbidden', 'This upload link has expired; ask for a new one', { details: { reason: 'expired' } });
}

function used(): RagdeskError {
  return new RagdeskError('conflict', 'This upload link was used already; each link takes one upload', { details: { reason: 'used' } });
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new RagdeskError('invalid_request', `uploads.${name} must be a positive number`);
  return value;
}
