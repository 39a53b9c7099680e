/**
 * The one HTML extractor, used by the file loader (uploaded `.html`) and the web loader (fetched
 * pages) alike: parse with htmlparser2 into a bare tree (`dom.ts`), read title, description and links, drop hidden text and page
 * chrome (`HTML_RULES`), pick `main` / a single `article` when the page has one, then walk the text.
 */
import { payloadTooLarge } from '../loader-errors.js';
import { removeBoilerplate } from './boilerplate.js';
import { childElements, eachElement, hasText, inlineText, type HtmlElement } from './dom.js';
import { DEFAULT_MARKUP_LIMITS, parseHtml } from './parse-html.js';
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
  // A fragment is wrapped so that its text sits in a <body> like a page's.
  const markup = /<html[\s>]/i.test(html.slice(0, 4096)) ? html : `<html><head></head><body>${html}</body></html>`;
  const document = parsableDocument(markup, pageUrl);
  const found = landmarks(document);
  const title = inlineText(found.title) || (rules.titleFromHeading ? inlineText(found.heading) : '');
  const description = metaContent(found.metas);
  const links =
    pageUrl === undefined ? [] : pageLinks(document, new URL(pageUrl), found.baseHref, options.maxLinks ?? Number.POSITIVE_INFINITY);
  removeBoilerplate(bodyOf(document), rules);
  const text = visibleText(rules.contentRoot ? contentRoot(document) : bodyOf(document), rules);
  return { ...(title ? { title } : {}), ...(description ? { description } : {}), text, links };
}

/**
 * The `<body>` where the DOM looks for it (the element after `<head>` in `<html>`), else the whole
 * document: tag soup without a `<body>` tag keeps its text.
 */
function bodyOf(document: HtmlElement): HtmlElement {
  const root = childElements(document)[0];
  if (!root) return document;
  const [first, second] = childElements(root);
  const candidate = first?.name === 'head' ? second : first;
  return candidate?.name === 'body' ? candidate : root;
}

interface Landmarks {
  title?: HtmlElement;
  heading?: HtmlElement;
  metas: HtmlElement[];
  baseHref?: string;
}

/** The first `<title>`, `<h1>` and `<base href>`, and every `<meta content>`: one walk for all. */
function landmarks(document: HtmlElement): Landmarks {
  const found: Landmarks = { metas: [] };
  eachElement(document, (element) => {
    const { name, attributes } = element;
    if (name === 'title') found.title ??= element;
    else if (name === 'h1') found.heading ??= element;
    else if (name === 'meta' && attributes.content !== undefined) found.metas.push(element);
    else if (name === 'base' && attributes.href !== undefined) found.baseHref ??= attributes.href;
  });
  return found;
}

/** `main` (else `[role="main"]`), else the only `article`, when it has text; else the body. */
function contentRoot(document: HtmlElement): HtmlElement {
  let main: HtmlElement | undefined;
  let roleMain: HtmlElement | undefined;
  const articles: HtmlElement[] = [];
  eachElement(document, (element) => {
    if (element.name === 'main') main ??= element;
    else if (element.attributes.role === 'main') roleMain ??= element;
    if (element.name === 'article') articles.push(element);
  });
  const chosen = main ?? roleMain;
  if (chosen && hasText(chosen)) return chosen;
  if (articles.length === 1 && hasText(articles[0]!)) return articles[0]!;
  return bodyOf(document);
}

function metaContent(metas: readonly HtmlElement[]): string {
  const named = (key: string) => metas.find((meta) => (meta.attributes.name ?? meta.attributes.property)?.toLowerCase() === key);
  const meta = named('description') ?? named('og:description');
  return (meta?.attributes.content ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * The parsed page, or `payload_too_large` when it nests deeper or holds more nodes than
 * `DEFAULT_MARKUP_LIMITS` (see `parse-html.ts`: the parse stops at the first limit passed).
 */
function parsableDocument(markup: string, pageUrl: string | undefined): HtmlElement {
  const { maxDepth, maxNodes } = DEFAULT_MARKUP_LIMITS;
  const parsed = parseHtml(markup, { maxDepth, maxNodes });
  if ('document' in parsed) return parsed.document;
  const subject = pageUrl ?? 'the HTML';
  const where = pageUrl === undefined ? {} : { url: pageUrl };
  if (parsed.exceeded === 'depth') {
    throw payloadTooLarge(`${subject} nests elements more than ${maxDepth} levels deep`, { ...where, reason: 'html_too_deep', maxDepth });
  }
  throw payloadTooLarge(`${subject} has more than ${maxNodes} HTML nodes`, { ...where, reason: 'html_too_many_nodes', maxNodes });
}
