import { RagdeskError } from '../errors.js';
import type { FileLoading, LoadedDocument } from '../ports/loader.js';
import type { WebLoader } from '../ports/web-loader.js';

/** Where attachments are read from: the web loader fetches them, the file loaders parse them. */
export interface AttachmentReaders {
  web?: WebLoader | undefined;
  files?: FileLoading | undefined;
  /** The usage limit on a file's bytes (`usage.maxFileBytes`), applied to fetched files too. */
  maxFileBytes?: number | undefined;
  /** The agent's owner, so parsing shares the parsers fairly like datasource syncs do. */
  owner?: string | undefined;
  /**
   * Files uploaded to this instance through upload links, read from the Store instead of fetched:
   * null when the URL is no upload link, a warning when this query may not read it.
   */
  uploaded?: ((url: string) => Promise<{ bytes: Uint8Array; mimeType: string } | string | null>) | undefined;
}

export interface QueryAttachment {
  name: string;
  url: string;
  mimeType?: string | undefined;
}

/** At most this many characters of all attachments together reach the prompt; the rest is cut and said so. */
export const ATTACHMENT_TEXT_LIMIT = 40_000;

/**
 * The text of a message's attachments, in the form the reference service adds to the question
 * (`FILENAME: <name> CONTENT: <text>`, separated by `###`). Files are fetched through the web
 * loader, so its SSRF guard, size and time limits apply, and parsed by the configured file loaders
 * (PDF, Office, CSV, JSON, ... in their parser processes, with their limits); without file loaders
 * only pages (text, Markdown, HTML) are read. A file that cannot be read, a type no loader reads, an
 * image (the chat models here take none) or a missing web loader becomes a warning, never a failed
 * query.
 */
export async function readAttachments(
  readers: AttachmentReaders,
  attachments: readonly QueryAttachment[],
  signal: AbortSignal | undefined,
): Promise<{ parts: string[]; warnings: string[] }> {
  const parts: string[] = [];
  const warnings: string[] = [];
  if (attachments.length === 0) return { parts, warnings };
  const { web } = readers;
  let budget = ATTACHMENT_TEXT_LIMIT;
  for (const attachment of attachments) {
    const name = attachment.name.slice(0, 200);
    if (attachment.mimeType?.startsWith('image/')) {
      warnings.push(imageWarning(name));
      continue;
    }
    if (!/^https?:\/\//i.test(attachment.url)) {
      warnings.push(`attachment ${JSON.stringify(name)} was not read: its url is not http(s)`);
      continue;
    }
    try {
      const uploaded = (await readers.uploaded?.(attachment.url)) ?? null;
      if (typeof uploaded === 'string') {
        warnings.push(`attachment ${JSON.stringify(name)} was not read: ${uploaded}`);
        continue;
      }
      let document: LoadedDocument | string;
      if (uploaded !== null) document = await parseUploaded(readers, uploaded, attachment, name, signal);
      else if (web) document = await readOne(readers, web, attachment, name, signal);
      else {
        if (!warnings.includes(NO_WEB_LOADER)) warnings.push(NO_WEB_LOADER);
        continue;
      }
      if (typeof document === 'string') {
        warnings.push(document);
        continue;
      }
      let text = document.sections
        .map((section) => section.text)
        .join('\n\n')
        .trim();
      if (text.length > budget) {
        warnings.push(`attachment ${JSON.stringify(name)} was cut to fit the ${ATTACHMENT_TEXT_LIMIT}-character attachment limit`);
        text = text.slice(0, budget);
      }
      budget -= text.length;
      parts.push(`FILENAME: ${name} CONTENT: ${text}`);
    } catch (error) {
      if (signal?.aborted) throw error;
      const code = RagdeskError.isInstance(error) ? error.code : 'upstream_failed';
      warnings.push(`attachment ${JSON.stringify(name)} could not be read (${code})`);
    }
  }
  return { parts, warnings };
}

const NO_WEB_LOADER = 'attachments were not read: no web loader is configured';

/** An uploaded file's document (parsed like a fetched one), or the warning saying why it is not read. */
async function parseUploaded(
  readers: AttachmentReaders,
  file: { bytes: Uint8Array; mimeType: string },
  attachment: QueryAttachment,
  name: string,
  signal: AbortSignal | undefined,
): Promise<LoadedDocument | string> {
  if (!readers.files) return `attachment ${JSON.stringify(name)} was not read: no file loaders are configured`;
  return parseFile(readers, readers.files, { bytes: file.bytes, mimeType: file.mimeType }, attachment, name, signal);
}

/** One attachment's document, or the warning saying why it is not read. */
async function readOne(
  readers: AttachmentReaders,
  web: WebLoader,
  attachment: QueryAttachment,
  name: string,
  signal: AbortSignal | undefined,
): Promise<LoadedDocument | string> {
  const { files } = readers;
  if (!files || !web.fetchFile) return (await web.loadPage(attachment.url, signal ? { signal } : {})).document;
  const fetched = await web.fetchFile(attachment.url, {
    ...(signal ? { signal } : {}),
    ...(readers.maxFileBytes === undefined ? {} : { maxBytes: readers.maxFileBytes }),
  });
  return parseFile(readers, files, fetched, attachment, name, signal);
}

async function parseFile(
  readers: AttachmentReaders,
  files: FileLoading,
  fetched: { bytes: Uint8Array; mimeType: string },
  attachment: QueryAttachment,
  name: string,
  signal: AbortSignal | undefined,
): Promise<LoadedDocument | string> {
  if (fetched.mimeType.startsWith('image/')) return imageWarning(name);
  // Storage often serves uploads as application/octet-stream: the uploader's type is the better
  // hint. Either way the loaders decide from the bytes.
  const declared = attachment.mimeType || fetched.mimeType;
  const file = { bytes: fetched.bytes, fileName: name, ...(declared ? { mimeType: declared } : {}) };
  try {
    files.inspect(file);
  } catch (error) {
    if (RagdeskError.isInstance(error) && error.code === 'unsupported_media_type') {
      const type = (error.details as { mimeType?: unknown } | undefined)?.mimeType;
      const named = typeof type === 'string' ? type : declared || 'unknown';
      return `attachment ${JSON.stringify(name)} was not read: no file loader reads its type (${named.slice(0, 100)})`;
    }
    throw error;
  }
  return files.load({ ...file, ...(signal ? { signal } : {}), ...(readers.owner === undefined ? {} : { owner: readers.owner }) });
}

function imageWarning(name: string): string {
  return `attachment ${JSON.stringify(name)} is an image; the chat model here takes no images`;
}

/** The question as the model sees it: the user's text, then the attachments' text. */
export function withAttachments(query: string, parts: readonly string[]): string {
  return parts.length === 0 ? query : `${query}\n${parts.join('\n###\n')}`;
}
