import { z } from 'zod';
import { RagdeskError, schemas, type UploadLink } from '../../src/index.js';
import type { ResolvedOptions } from './options.js';
import type { HttpRequest } from './types.js';

/**
 * Generate Upload Links, as the reference service's chat widget asks for them: one item per file,
 * each answered with a URL to `PUT` the file to (`signedUrl`) and the URL to attach to the message
 * (`fileUrl`). Only chat uploads exist here: the reference's other cases (agent, organization and
 * user icons, forms) belong to its dashboard.
 */
const uploadLinkItemSchema = z.strictObject({
  case: z.literal('chatUpload', { error: 'only "chatUpload" links are made here' }),
  agentId: schemas.idSchema,
  conversationId: schemas.idSchema,
  /** Binds the link to this visitor's messages as well (optional; the reference's widget does not send it). */
  visitorId: schemas.idSchema.optional(),
  fileName: z.string().min(1).max(500),
  /** May be empty (browsers leave it so for some files): the file name's extension decides then. */
  mimeType: z.string().max(200).optional(),
  /** The file's size, when known: a file over the limit is refused here instead of after its upload. */
  size: z.int().min(0).optional(),
});

export const uploadLinksBodySchema = z.array(uploadLinkItemSchema).min(1).max(10);

/** The answer for one file: the reference's two URLs, plus what the link allows. */
export interface UploadLinkWire {
  signedUrl: string;
  fileUrl: string;
  uploadId: string;
  mimeType: string;
  maxBytes: number;
  expiresAt: string;
}

export function uploadLinkToWire(origin: string, basePath: string, link: UploadLink): UploadLinkWire {
  const fileUrl = `${origin}${basePath}/uploads/${link.id}`;
  return {
    signedUrl: `${fileUrl}?token=${link.secret}`,
    fileUrl,
    uploadId: link.id,
    mimeType: link.mimeType,
    maxBytes: link.maxBytes,
    expiresAt: link.uploadBefore,
  };
}

const HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** Where links point: the configured `publicUrl`, else this request's own host. */
export function publicOrigin(request: HttpRequest, options: ResolvedOptions): string {
  if (options.publicUrl !== undefined) return options.publicUrl;
  const host = request.header('host');
  if (host === undefined || !HOST.test(host)) {
    throw new RagdeskError('invalid_request', 'Upload links need a Host header naming this server (or the publicUrl option)', {
      details: { issues: [{ path: 'host', message: 'missing or not a host name' }] },
    });
  }
  const forwarded = request.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  return `${forwarded === 'https' ? 'https' : 'http'}://${host.toLowerCase()}`;
}
