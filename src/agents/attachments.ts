import { RagdeskError } from '../errors.js';
import type { FileLoading, LoadedDocument } from '../ports/loader.js';
import type { WebLoader } from '../ports/web-loader.js';
import { linkedSignal } from '../util/linked-signal.js';
import type { AttachmentClock, AttachmentLimits } from './attachment-limits.js';
import type { VisitorAttachmentBudget } from './visitor-attachment-budget.js';

/** Where attachments are read from: the web loader fetches them, the file loaders parse them. */
export interface AttachmentReaders {
  web?: WebLoader | undefined;
  files?: FileLoading | undefined;
  /** The usage limit on a file's bytes (`usage.maxFileBytes`), applied to fetched files too. */
  maxFileBytes?: number | undefined;
  /** The agent's owner, so parsing shares the parsers fairly like datasource syncs do. */
  owner?: string | undefined;
  /**
   * Files uploaded to this instance through upload links, read from the account store instead of fetched:
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

/** How a query's attachments are bounded (see `AttachmentLimits`) and, for visitors, whose budget they draw on. */
export interface AttachmentPolicy {
  limits: AttachmentLimits;
  clock: AttachmentClock;
  /** Set for a visitor's query: the agent's shared visitor budget. */
  visitor?: { budget: VisitorAttachmentBudget; agentId: string } | undefined;
}

/**
 * The text of a message's attachments, in the form the reference service adds to the question
 * (`FILENAME: <name> CONTENT: <text>`, separated by `###`). Files are fetched through the web
 * loader, so its SSRF guard, size and time limits apply, and parsed by the configured file loaders
 * (PDF, Office, CSV, JSON, ... in their parser processes, in the owner's turn of the parser queue,
 * with their limits); without file loaders only pages (text, Markdown, HTML) are read. The query
 * as a whole is bounded by `policy`: a number of attachments, bytes, redirects per attachment and
 * one deadline for all of them. A file that cannot be read, a type no loader reads, an image (the
 * chat models here take none), a limit reached or a missing web loader becomes a warning, never a
 * failed query.
 */
export async function readAttachments(
  readers: AttachmentReaders,
  attachments: readonly QueryAttachment[],
  signal: AbortSignal | undefined,
  policy: AttachmentPolicy,
): Promise<{ parts: string[]; warnings: string[] }> {
  const parts: string[] = [];
  const warnings: string[] = [];
  if (attachments.length === 0) return { parts, warnings };
  const { web } = readers;
  const { limits } = policy;
  let allowed = Math.min(attachments.length, limits.maxAttachments);
  if (allowed < attachments.length) {
    warnings.push(
      `${attachments.length - allowed} attachment(s) past the limit of ${limits.maxAttachments} per query were not read (too_many_attachments)`,
    );
  }
  if (policy.visitor && allowed > 0) {
    const granted = policy.visitor.budget.take(policy.visitor.agentId, allowed);
    if (granted < allowed) {
      warnings.push(
        `${allowed - granted} attachment(s) were not read: this agent's visitors used their attachment budget for now (visitor_attachment_budget)`,
      );
    }
    allowed = granted;
  }
  const deadline = startDeadline(policy, signal);
  const budget = { chars: ATTACHMENT_TEXT_LIMIT, bytes: limits.maxBytes };
  try {
    for (const attachment of attachments.slice(0, allowed)) {
      const name = attachment.name.slice(0, 200);
      if (attachment.mimeType?.startsWith('image/')) {
        warnings.push(imageWarning(name));
        continue;
      }
      if (!/^https?:\/\//i.test(attachment.url)) {
        warnings.push(`attachment ${JSON.stringify(name)} was not read: its url is not http(s)`);
        continue;
      }
      if (deadline.expired()) {
        warnings.push(deadlineWarning(name, limits));
        continue;
      }
      if (budget.bytes <= 0) {
        warnings.push(bytesWarning(name, limits));
        continue;
      }
      const release = policy.visitor ? await enterOrNull(policy.visitor, deadline.signal) : () => undefined;
      if (!release) {
        if (signal?.aborted) throw signal.reason;
        warnings.push(deadlineWarning(name, limits));
        continue;
      }
      try {
        const visitor = policy.visitor !== undefined;
        const uploaded = (await readers.uploaded?.(attachment.url)) ?? null;
        if (typeof uploaded === 'string') {
          warnings.push(`attachment ${JSON.stringify(name)} was not read: ${uploaded}`);
          continue;
        }
        let document: LoadedDocument | string;
        if (uploaded !== null) {
          budget.bytes -= uploaded.bytes.byteLength;
          document = readers.files
            ? await parseFile(readers, readers.files, uploaded, attachment, name, deadline.signal, visitor)
            : `attachment ${JSON.stringify(name)} was not read: no file loaders are configured`;
        } else if (web) document = await readOne(readers, web, attachment, name, deadline.signal, budget, limits, visitor);
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
        if (text.length > budget.chars) {
          warnings.push(`attachment ${JSON.stringify(name)} was cut to fit the ${ATTACHMENT_TEXT_LIMIT}-character attachment limit`);
          text = text.slice(0, budget.chars);
        }
        budget.chars -= text.length;
        parts.push(`FILENAME: ${name} CONTENT: ${text}`);
      } catch (error) {
        if (signal?.aborted) throw error;
        if (deadline.expired()) warnings.push(deadlineWarning(name, limits));
        else if (budget.bytes < (readers.maxFileBytes ?? Infinity) && isCode(error, 'payload_too_large'))
          warnings.push(bytesWarning(name, limits));
        else warnings.push(`attachment ${JSON.stringify(name)} could not be read (${failureLabel(error)})`);
      } finally {
        release();
      }
    }
  } finally {
    deadline.dispose();
  }
  return { parts, warnings };
}

const NO_WEB_LOADER = 'attachments were not read: no web loader is configured';

/** One deadline for all attachments of a query, tied to the caller's signal. */
function startDeadline(policy: AttachmentPolicy, signal: AbortSignal | undefined) {
  const controller = new AbortController();
  let expired = false;
  const cancel = policy.clock.after(policy.limits.deadlineMs, () => {
    expired = true;
    controller.abort(
      new RagdeskError('upstream_timeout', `Attachments took longer than the ${policy.limits.deadlineMs} ms they may take together`, {
        details: { reason: 'attachment_deadline', deadlineMs: policy.limits.deadlineMs },
      }),
    );
  });
  const linked = linkedSignal(signal, controller.signal);
  return {
    signal: linked.signal,
    expired: () => expired,
    dispose: () => {
      cancel();
      linked.dispose();
    },
  };
}

async function enterOrNull(visitor: NonNullable<AttachmentPolicy['visitor']>, signal: AbortSignal): Promise<(() => void) | null> {
  try {
    return await visitor.budget.enter(visitor.agentId, signal);
  } catch {
    return null;
  }
}

function deadlineWarning(name: string, limits: AttachmentLimits): string {
  return `attachment ${JSON.stringify(name)} was not read within the ${limits.deadlineMs} ms all attachments may take (attachment_deadline)`;
}

function bytesWarning(name: string, limits: AttachmentLimits): string {
  return `attachment ${JSON.stringify(name)} was not read: the attachments passed the ${limits.maxBytes}-byte budget of a query (attachment_bytes)`;
}

/** The error's code, and for an upstream failure or a stopped parse its reason (`upstream_failed: too_many_redirects`). */
function failureLabel(error: unknown): string {
  if (!RagdeskError.isInstance(error)) return 'upstream_failed';
  const reason = (error.details as { reason?: unknown } | undefined)?.reason;
  const explained = error.code === 'upstream_failed' || error.code === 'aborted';
  return explained && typeof reason === 'string' ? `${error.code}: ${reason}` : error.code;
}

function isCode(error: unknown, code: string): boolean {
  return RagdeskError.isInstance(error) && error.code === code;
}

/** One attachment's document, or the warning saying why it is not read. */
async function readOne(
  readers: AttachmentReaders,
  web: WebLoader,
  attachment: QueryAttachment,
  name: string,
  signal: AbortSignal,
  budget: { bytes: number },
  limits: AttachmentLimits,
  visitor: boolean,
): Promise<LoadedDocument | string> {
  const { files } = readers;
  if (!files || !web.fetchFile) {
    const page = await web.loadPage(attachment.url, { signal });
    budget.bytes -= page.document.sections.reduce((sum, section) => sum + section.text.length, 0);
    return page.document;
  }
  const fetched = await web.fetchFile(attachment.url, {
    signal,
    maxBytes: Math.min(readers.maxFileBytes ?? Infinity, budget.bytes),
    maxRedirects: limits.maxRedirects,
  });
  budget.bytes -= fetched.bytes.byteLength;
  return parseFile(readers, files, fetched, attachment, name, signal, visitor);
}

/** A fetched or uploaded file's document, or the warning saying why it is not read. */
async function parseFile(
  readers: AttachmentReaders,
  files: FileLoading,
  fetched: { bytes: Uint8Array; mimeType: string },
  attachment: QueryAttachment,
  name: string,
  signal: AbortSignal,
  visitor: boolean,
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
  // The parse runs under the same deadline, in the agent owner's turn of the parser queue; a
  // visitor's behind the owner's own files.
  return files.load({
    ...file,
    signal,
    ...(readers.owner === undefined ? {} : { owner: readers.owner }),
    ...(visitor ? { yieldToOwner: true } : {}),
  });
}

function imageWarning(name: string): string {
  return `attachment ${JSON.stringify(name)} is an image; the chat model here takes no images`;
}

/** The question as the model sees it: the user's text, then the attachments' text. */
export function withAttachments(query: string, parts: readonly string[]): string {
  return parts.length === 0 ? query : `${query}\n${parts.join('\n###\n')}`;
}
