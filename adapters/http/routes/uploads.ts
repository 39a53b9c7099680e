import { RagdeskError, UPLOAD_TYPES, parseInput } from '../../../src/index.js';
import { readBytes, readJsonValue } from '../body.js';
import { json, param, type Route } from '../operation.js';
import { publicOrigin, uploadLinksBodySchema, uploadLinkToWire } from '../upload-links.js';
import { queryableAgent } from '../queryable-agent.js';

export const uploadRoutes: Route[] = [
  {
    method: 'POST',
    path: '/generate-upload-links',
    operationId: 'generateUploadLinks',
    summary:
      'Generate Upload Links for files a chat visitor attaches to a message: one `{ case: "chatUpload", agentId, conversationId, ' +
      'fileName, mimeType }` per file (at most 10), answered in order with `signedUrl` (PUT the file there once, before `expiresAt`) ' +
      'and `fileUrl` (send it as the attachment `url` of a query in that conversation). Whoever may query the agent may ask: ' +
      'anyone for a public agent, else the owner with the `query` scope. Types: the ones the file loaders read; images are refused.',
    tag: 'uploads',
    auth: 'public-agent',
    body: { json: uploadLinksBodySchema, name: 'UploadLinksRequest' },
    response: 'UploadLink[]',
    errors: [400, 403, 404, 413, 415],
    async run(context) {
      const items = parseInput(uploadLinksBodySchema, await readJsonValue(context.request, context.options.maxJsonBytes), 'upload links');
      const origin = publicOrigin(context.request, context.options);
      const { uploads } = context.ragdesk;
      items.forEach((item, index) => {
        if (item.size !== undefined && item.size > uploads.maxBytes) {
          throw new RagdeskError('invalid_request', `A file may have at most ${uploads.maxBytes} bytes`, {
            details: { issues: [{ path: `${index}.size`, message: `at most ${uploads.maxBytes}` }] },
          });
        }
      });
      const links = [];
      for (const [index, item] of items.entries()) {
        const { agent } = await queryableAgent(context, item.agentId);
        const link = await uploads
          .createLink({
            agentId: agent.id,
            ownerId: agent.ownerId,
            conversationId: item.conversationId,
            visitorId: item.visitorId,
            fileName: item.fileName,
            mimeType: item.mimeType,
          })
          .catch((error: unknown) => {
            throw withItemPath(error, index);
          });
        links.push(uploadLinkToWire(origin, context.options.basePath, link));
      }
      return json(links);
    },
  },
  {
    method: 'PUT',
    path: '/uploads/{id}',
    operationId: 'uploadFileToLink',
    summary:
      'The one upload of an upload link: the file as the raw body, with the declared `Content-Type` (or none). ' +
      'The `token` comes with the link; no API key. Unknown link or wrong token: 404; expired: 403 (`details.reason: "expired"`); ' +
      'used already: 409 (`"used"`); over the size limit: 413; another type, or bytes the file loaders cannot read: 415.',
    tag: 'uploads',
    auth: 'none',
    queryParameters: [{ name: 'token', description: 'The secret part of the signed URL', required: true }],
    body: { raw: Object.keys(UPLOAD_TYPES), description: "The file's bytes, in the type the link was made for" },
    response: 'UploadedFile',
    errors: [403, 404, 409, 413, 415],
    async run(context) {
      const token = context.request.query.get('token') ?? '';
      const bytes = await readBytes(context.request, context.ragdesk.uploads.maxBytes);
      const record = await context.ragdesk.uploads.upload(param(context, 'id'), token, {
        bytes,
        mimeType: context.request.header('content-type'),
      });
      return json({
        id: record.id,
        fileName: record.fileName,
        mimeType: record.mimeType,
        size: record.size ?? bytes.byteLength,
        uploadedAt: record.uploadedAt ?? '',
        keepUntil: record.keepUntil,
      });
    },
  },
];

/** A refused type names the item it came from. */
function withItemPath(error: unknown, index: number): unknown {
  if (!RagdeskError.isInstance(error) || error.code !== 'invalid_request') return error;
  const issues = (error.details?.issues as { path: string; message: string }[] | undefined) ?? [];
  return new RagdeskError('invalid_request', error.message, {
    details: { ...error.details, issues: issues.map((issue) => ({ ...issue, path: `${index}.${issue.path}` })) },
  });
}
