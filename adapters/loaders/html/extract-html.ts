/**
 * The one HTML extractor, used by the file loader (uploaded `.html`) and the web loader (fetched
 * pages) alike: parse with linkedom, read title, description and links, drop hidden text and page
 * chrome (`HTML_RULES`), pick `main` / a single `article` when the page has one, then walk the text.
 */
import { parseHTML } from 'linkedom';
import { DEFAULT_MARKUP_LIMITS, measureMarkup } from '../../kit/markup-shape.js';
import { payloadTooLarge } from '../loader-errors.js';
import { removeBoilerplate } from './boilerplate.js';
import { inlineText, type DomDocument, type DomElement } from './dom.js';
import { pageLinks } from './page-links.js';
import { HTML_RULES, type HtmlRules } from './rules.js';
import { visibleText } from './visible-text.js';

export interface ExtractedHtml {
  /** `<title>`, else the first `<h1>`, whitespace collapsed. */
  title?: string;
  /** `<meta name="description">` (or `og:description`): kept apart, not added to `text`. */
  description?: string;
  /** The main text, blocks on their own lines, paragraphs separated by a blank line. */
  text: string;
  /**
   * With `pageUrl`: same-origin http(s) links of the whole page, absolute, without fragment, in
   * document order, deduplicated. Empty without `pageUrl` (a file has no address to resolve against).
   */
  links: string[];
}

export interface ExtractHtmlOptions {
  /** Where the page came from: resolves links and names the page in errors. */
  pageUrl?: string;
  /**
   * Links kept with `pageUrl`, the first in document order (a page of 220,000 links would
   * otherwise hold them all; the web loader passes its `maxLinksPerPage`). Default: all.
   */
  maxLinks?: number;
}

export function extractHtml(html: string, options: ExtractHtmlOptions = {}): ExtractedHtml {
  return extractHtmlWith(html, options, HTML_RULES);
}

/** {@link extractHtml} under other rules: `bench:html-rules` compares rule sets with it. */
export function extractHtmlWith(html: string, options: ExtractHtmlOptions, rules: HtmlRules): ExtractedHtml {
  const { pageUrl } = options;
  // linkedom needs a full document to build <body>; fragments are wrapped.
  const markup = /<html[\s>]/i.test(html.slice(0, 4096)) ? html : `<html><head></head><body>${html}</body></html>`;
  assertParsableMarkup(markup, pageUrl);
  // linkedom types its document with the DOM lib, which this project does not load: our own shape.
  const { document } = parseHTML(markup) as unknown as { document: DomDocument };
  const title = inlineText(document.querySelector('title')) || (rules.titleFromHeading ? inlineText(document.querySelector('h1')) : '');
  const description = metaContent(document);
  const links = pageUrl === undefined ? [] : pageLinks(document, new URL(pageUrl), options.maxLinks ?? Number.POSITIVE_INFINITY);
  removeBoilerplate(document, rules);
  const text = visibleText(rules.contentRoot ? contentRoot(document) : bodyOf(document), rules);
  return { ...(title ? { title } : {}), ...(description ? { description } : {}), text, links };
}

function bodyOf(document: DomDocument): DomElement {
  return document.body ?? document.documentElement;
}

function contentRoot(document: DomDocument): DomElement {
  const main = document.querySelector('main') ?? document.querySelector('[role="main"]');
  if (main && inlineText(main)) return main;
  const articles = Array.from(document.querySelectorAll('article'));
  if (articles.length === 1 && inlineText(articles[0])) return articles[0]!;
  return bodyOf(document);
}

function metaContent(document: DomDocument): string {
  const metas = Array.from(document.querySelectorAll('meta[content]'));
  const named = (key: string) => metas.find((meta) => (meta.getAttribute('name') ?? meta.getAttribute('property'))?.toLowerCase() === key);
  const meta = named('description') ?? named('og:description');
  return (meta?.getAttribute('content') ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * Refuses markup that would nest deeper or build more nodes than linkedom handles safely (its parser
 * is quadratic in depth; each node costs ~350 bytes of heap): see `adapters/kit/markup-shape.ts`.
 */
function assertParsableMarkup(markup: string, pageUrl: string | undefined): void {
  const { maxDepth, maxNodes } = DEFAULT_MARKUP_LIMITS;
  const shape = measureMarkup(markup, { maxDepth, maxNodes });
  if (shape.exceeded === undefined) return;
  const subject = pageUrl ?? 'the HTML';
  const where = pageUrl === undefined ? {} : { url: pageUrl };
  if (shape.exceeded === 'depth') {
    throw payloadTooLarge(`${subject} nests elements more than ${maxDepth} levels deep`, { ...where, reason: 'html_too_deep', maxDepth });
  }
  throw payloadTooLarge(`${subject} has more than ${maxNodes} HTML nodes`, { ...where, reason: 'html_too_many_nodes', maxNodes });
}
