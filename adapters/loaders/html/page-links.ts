import type { DomDocument } from './dom.js';

/**
 * Same-origin http(s) links of the whole page (navigation included: menus are how a crawler finds
 * pages), at most `maxLinks` of them, resolved against `<base href>` or the page URL, without fragment, deduplicated, in order.
 */
export function pageLinks(document: DomDocument, pageUrl: URL, maxLinks: number): string[] {
  const baseHref = document.querySelector('base[href]')?.getAttribute('href');
  let base = pageUrl;
  try {
    if (baseHref) base = new URL(baseHref, pageUrl);
  } catch {
    // an unusable <base> is ignored, as browsers do
  }
  const links = new Set<string>();
  for (const anchor of Array.from(document.querySelectorAll('a[href]'))) {
    if (links.size >= maxLinks) break;
    let url: URL;
    try {
      url = new URL(anchor.getAttribute('href') ?? '', base);
    } catch {
      continue;
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== pageUrl.origin) continue;
    url.hash = '';
    links.add(url.href);
  }
  return [...links];
}
