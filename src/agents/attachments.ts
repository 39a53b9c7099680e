import { isRagdeskError } from '../errors.js';
import type { WebLoader } from '../ports/web-loader.js';

export interface QueryAttachment {
  name: string;
  url: string;
  mimeType?: string | undefined;
}

/** At most this many characters of all attachments together reach the prompt; the rest is cut and said so. */
const ATTACHMENT_TEXT_LIMIT = 40_000;

/**
 * The text of a message's attachments, in the form the reference service adds to the question
 * (`FILENAME: <name> CONTENT: <text>`, separated by `###`). Files are fetched through the web
 * loader, so its SSRF guard, size and time limits apply; a file that cannot be read, an image (the
 * chat models here take none) or a missing web loader becomes a warning, never a failed query.
 */
export async function readAttachments(
  web: WebLoader | undefined,
  attachments: readonly QueryAttachment[],
  signal: AbortSignal | undefined,
): Promise<{ parts: string[]; warnings: string[] }> {
  const parts: string[] = [];
  const warnings: string[] = [];
  if (attachments.length === 0) return { parts, warnings };
  if (!web) return { parts, warnings: ['attachments were not read: no web loader is configured'] };
  let budget = ATTACHMENT_TEXT_LIMIT;
  for (const attachment of attachments) {
    const name = attachment.name.slice(0, 200);
    if (attachment.mimeType?.startsWith('image/')) {
      warnings.push(`attachment ${JSON.stringify(name)} is an image; the chat model here takes no images`);
      continue;
    }
    if (!/^https?:\/\//i.test(attachment.url)) {
      warnings.push(`attachment ${JSON.stringify(name)} was not read: its url is not http(s)`);
      continue;
    }
    try {
      const page = await web.loadPage(attachment.url, signal ? { signal } : {});
      let text = page.document.sections
        .map((section) => section.text)
        .join('\n')
        .trim();
      if (text.length > budget) {
        warnings.push(`attachment ${JSON.stringify(name)} was cut to fit the ${ATTACHMENT_TEXT_LIMIT}-character attachment limit`);
        text = text.slice(0, budget);
      }
      budget -= text.length;
      parts.push(`FILENAME: ${name} CONTENT: ${text}`);
    } catch (error) {
      if (signal?.aborted) throw error;
      const code = isRagdeskError(error) ? error.code : 'upstream_failed';
      warnings.push(`attachment ${JSON.stringify(name)} could not be read (${code})`);
    }
  }
  return { parts, warnings };
}

/** The question as the model sees it: the user's text, then the attachments' text. */
export function withAttachments(query: string, parts: readonly string[]): string {
  return parts.length === 0 ? query : `${query}\n${parts.join('\n###\n')}`;
}
