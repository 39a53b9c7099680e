/**
 * Main-text extraction from HTML with linkedom: collect links, drop chrome (scripts, navigation,
 * hidden and boilerplate blocks), pick `main` / `article` when the page has one, then walk the text.
 */
import { parseHTML } from 'linkedom';
import { RagdeskError } from '../../src/errors.js';
import { DEFAULT_MARKUP_LIMITS, measureMarkup } from '../../src/util/markup-shape.js';
import { inlineText, visibleText, type DomElement } from './html-text.js';

export interface ExtractedHtml {
  title?: string;
  text: string;
  /** Same-origin http(s) links, absolute, without fragment, in document order, deduplicated. */
  links: string[];
}

interface DomDocument {
  documentElement: DomElement;
  body: DomElement | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}

const REMOVED = [
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'nav',
  'footer',
  'aside',
  'form',
  'iframe',
  'object',
  'embed',
  'canvas',
  'button',
  'select',
  'dialog',
  '[hidden]',
  '[aria-hidden="true"]',
  '[role="navigation"]',
  '[role="banner"]',
  '[role="contentinfo"]',
  '[role="dialog"]',
].join(', ');
/** Words that mark boilerplate anywhere in a class or id (`cookieBanner`, `site-sidebar`). */
const BOILERPLATE_ANYWHERE = /cookie|consent|newsletter|breadcrumb|sidebar/;
/** Words that mark boilerplate only as a whole token (`share` but not `shared`, `menu` not `menuitem`). */
const BOILERPLATE_TOKEN = /(^|[^a-z])(banner|subscribe|share|sharing|menu)([^a-z]|$)/;
const PROTECTED_TAGS = new Set(['html', 'body', 'main', 'article']);

function toArray<T>(list: ArrayLike<T>): T[] {
  return Array.from(list);
}

function collectLinks(document: DomDocument, pageUrl: URL, maxLinks: number): string[] {
  const baseHref = document.querySelector('base[href]')?.getAttribute('href');
  let base = pageUrl;
  try {
    if (baseHref) base = new URL(baseHref, pageUrl);
  } catch {
    // an unusable <base> is ignored, as browsers do
  }
  const links = new Set<string>();
  for (const anchor of toArray(document.querySelectorAll('a[href]'))) {
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

function isBoilerplate(element: DomElement): boolean {
  const names = `${element.id} ${typeof element.className === 'string' ? element.className : ''}`.toLowerCase();
  return BOILERPLATE_ANYWHERE.test(names) || BOILERPLATE_TOKEN.test(names);
}

function removeChrome(document: DomDocument): void {
  for (const element of toArray(document.querySelectorAll(REMOVED))) element.remove();
  // A <header> inside an article is the article's own heading, not the site banner.
  for (const header of toArray(document.querySelectorAll('header'))) {
    if (!header.parentElement?.closest('article, main')) header.remove();
  }
  for (const element of toArray(document.querySelectorAll('[style]'))) {
    if (/display\s*:\s*none|visibility\s*:\s*hidden/i.test(element.getAttribute('style') ?? '')) element.remove();
  }
  const bodyLength = inlineText(document.body).length;
  for (const element of toArray(document.querySelectorAll('[class], [id]'))) {
    if (PROTECTED_TAGS.has(element.tagName.toLowerCase()) || !isBoilerplate(element)) continue;
    if (element.querySelector('main, article, [role="main"]')) continue;
    // A layout wrapper named `has-sidebar` holds the page itself; boilerplate blocks are small.
    if (bodyLength > 200 && inlineText(element).length > bodyLength / 2) continue;
    element.remove();
  }
}

function contentRoot(document: DomDocument): DomElement {
  const main = document.querySelector('main') ?? document.querySelector('[role="main"]');
  if (main && inlineText(main)) return main;
  const articles = toArray(document.querySelectorAll('article'));
  if (articles.length === 1 && inlineText(articles[0])) return articles[0]!;
  return document.body ?? document.documentElement;
}

/** `maxLinks`: links kept, the first in document order (see `WebLoaderOptions.maxLinksPerPage`). */
export function extractHtml(html: string, pageUrl: string, maxLinks = Number.POSITIVE_INFINITY): ExtractedHtml {
  const markup = /<html[\s>]/i.test(html) ? html : `<html><body>${html}</body></html>`;
  assertParsableMarkup(markup, pageUrl);
  // linkedom types its document with the DOM lib, which this project does not load: our own shape.
  const { document } = parseHTML(markup) as unknown as { document: DomDocument };
  const title = inlineText(document.querySelector('title')) || inlineText(document.querySelector('h1'));
  const links = collectLinks(document, new URL(pageUrl), maxLinks);
  removeChrome(document);
  const text = visibleText(contentRoot(document));
  return { ...(title ? { title } : {}), text, links };
}

/**
 * Refuses a page that would nest deeper or build more nodes than linkedom handles safely (its parser
 * is quadratic in depth; each node costs ~350 bytes of heap): see `src/util/markup-shape.ts`.
 */
function assertParsableMarkup(markup: string, url: string): void {
  const { maxDepth, maxNodes } = DEFAULT_MARKUP_LIMITS;
  const shape = measureMarkup(markup, { maxDepth, maxNodes });
  if (shape.exceeded === undefined) return;
  const [message, details] =
    shape.exceeded === 'depth'
      ? [`nests elements more than ${maxDepth} levels deep`, { reason: 'html_too_deep', maxDepth }]
      : [`has more than ${maxNodes} HTML nodes`, { reason: 'html_too_many_nodes', maxNodes }];
  throw new RagdeskError('payload_too_large', `${url} ${message}`, { details: { url, ...details } });
}
