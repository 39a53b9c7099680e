/** One page: fetch, check the type, decode, extract. */
import { RagdeskError } from '../../src/errors.js';
import type { LoadedDocument } from '../../src/ports/loader.js';
import { createHash } from 'node:crypto';
import type { PageValidators, WebPage, WebPageUnchanged } from '../../src/ports/web-loader.js';
import type { ExtractedHtml } from '../loaders/html/extract-html.js';
import { fetchConditional, type FetchContext, type RedirectCheck } from './fetch-resource.js';
import { decodeText, isHtmlType, sniffPageType } from './media-types.js';

/** Main text, title and links of a page: on a parser thread or in process (`WebLoaderOptions.parser`). */
export type PageExtractor = (html: string, pageUrl: string, signal?: AbortSignal) => Promise<ExtractedHtml>;

export function loadWebPage(
  context: FetchContext,
  extract: PageExtractor,
  url: string,
  signal?: AbortSignal,
  beforeRedirect?: RedirectCheck,
): Promise<WebPage> {
  return loadPageIfChanged(context, extract, url, undefined, signal, beforeRedirect) as Promise<WebPage>;
}

/**
 * `loadWebPage` asked with what a previous load kept (`previous`): a 304, or a body whose hash is
 * `previous.bodyHash`, answers `WebPageUnchanged` without decoding or parsing anything.
 */
export async function loadPageIfChanged(
  context: FetchContext,
  extract: PageExtractor,
  url: string,
  previous: PageValidators | undefined,
  signal?: AbortSignal,
  beforeRedirect?: RedirectCheck,
): Promise<WebPage | WebPageUnchanged> {
  const fetched = await fetchConditional(context, url, 'page', {
    ...(signal ? { signal } : {}),
    ...(beforeRedirect ? { beforeRedirect } : {}),
    ...(previous ? { conditional: previous } : {}),
  });
  if ('notModified' in fetched) {
    const validators = {
      etag: fetched.validators.etag ?? previous?.etag ?? null,
      lastModified: fetched.validators.lastModified ?? previous?.lastModified ?? null,
      bodyHash: previous?.bodyHash ?? null,
    };
    return { url, finalUrl: fetched.finalUrl, unchanged: true, validators };
  }
  const bodyHash = createHash('sha256').update(fetched.body).digest('hex');
  const validators: PageValidators = { ...fetched.validators, bodyHash };
  if (previous?.bodyHash && previous.bodyHash === bodyHash) return { url, finalUrl: fetched.finalUrl, unchanged: true, validators };
  const mime = fetched.mediaType.mime || sniffPageType(fetched.body);
  if (!mime) {
    throw new RagdeskError('unsupported_media_type', `${fetched.finalUrl} has no content type and is not text`, {
      details: { url: fetched.finalUrl, contentType: '' },
    });
  }
  const html = isHtmlType(mime);
  const text = decodeText(fetched.body, fetched.mediaType.charset, html);
  const metadata: Record<string, string> = { url: fetched.finalUrl };
  if (!html) {
    const document: LoadedDocument = { sections: [{ text: text.trim() }], mimeType: 'text/plain', metadata };
    return { url, finalUrl: fetched.finalUrl, document, links: [], validators };
  }
  const extracted = await extract(text, fetched.finalUrl, signal);
  if (extracted.description) metadata.description = extracted.description;
  const document: LoadedDocument = {
    sections: [{ text: extracted.text }],
    mimeType: 'text/html',
    metadata,
    ...(extracted.title ? { title: extracted.title } : {}),
  };
  return {
    url,
    finalUrl: fetched.finalUrl,
    ...(extracted.title ? { title: extracted.title } : {}),
    document,
    links: extracted.links,
    validators,
  };
}
