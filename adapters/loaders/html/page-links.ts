import { eachElement, type HtmlElement } from './dom.js';

/**
 * Same-origin http(s) links of the whole page (navigation included: menus are how a crawler finds
 * pages), at most `maxLinks` of them, resolved against the first `<base href>` or the page URL, without fragment, deduplicated, in order.
 */
export function pageLinks(document: HtmlElement, pageUrl: URL, baseHref: string | undefined, maxLinks: number): string[] {
  let base = pageUrl;
  try {
    if (baseHref) base = new URL(baseHref, pageUrl);
  } catch {
    // an unusable <base> is ignored, as browsers do
  }
  const links = new Set<string>();
  if (maxLinks <= 0) return [];
  // Stops at the last link kept: a page of 220,000 links is not walked past its 10,000th.
  eachElement(document, (element) => {
    const href = element.name === 'a' ? element.attributes.href : undefined;
    if (href === undefined) return;
    const link = sameOriginLink(href, base, pageUrl.origin);
    if (link !== undefined) links.add(link);
    return links.size >= maxLinks ? 'stop' : undefined;
  });
  return [...links];
}

/** `href` resolved against `base`, without its fragment, if it is http(s) on `origin`. */
function sameOriginLink(href: string, base: URL, origin: string): string | undefined {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin) return undefined;
  // A serialised URL has '#' only before its fragment: cutting there is `url.hash = ''`, cheaper.
  const serialised = url.href;
  const hash = serialised.indexOf('#');
  return hash === -1 ? serialised : serialised.slice(0, hash);
}
