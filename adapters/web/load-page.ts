/** One page: fetch, check the type, decode, extract. */
import { RagdeskError } from '../../src/errors.js';
import type { LoadedDocument } from '../../src/ports/loader.js';
import type { WebPage } from '../../src/ports/web-loader.js';
import { extractHtml } from './extract-html.js';
import { fetchResource, type FetchContext } from './fetch-resource.js';
import { decodeText, isHtmlType, sniffPageType } from './media-types.js';

export async function loadWebPage(context: FetchContext, url: string, signal?: AbortSignal): Promise<WebPage> {
  const fetched = await fetchResource(context, url, 'page', signal ? { signal } : {});
  const mime = fetched.mediaType.mime || sniffPageType(fetched.body);
  if (!mime) {
    throw new RagdeskError('unsupported_media_type', `${fetched.finalUrl} has no content type and is not text`, {
      details: { url: fetched.finalUrl, contentType: '' },
    });
  }
  const html = isHtmlType(mime);
  const text = decodeText(fetched.body, fetched.mediaType.charset, html);
  const metadata = { url: fetched.finalUrl };
  if (!html) {
    const document: LoadedDocument = { sections: [{ text: text.trim() }], mimeType: 'text/plain', metadata };
    return { url, finalUrl: fetched.finalUrl, document, links: [] };
  }
  const extracted = extractHtml(text, fetched.finalUrl);
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
  };
}
