import { inlineText, type DomDocument, type DomElement } from './dom.js';
import type { HtmlRules } from './rules.js';

const HIDDEN_ATTRIBUTES = '[hidden], [aria-hidden="true"]';
const HIDDEN_STYLE = /display\s*:\s*none|visibility\s*:\s*hidden/i;
const NEVER_NAMED_CHROME = new Set(['HTML', 'BODY', 'MAIN', 'ARTICLE']);
/** Lists and tables with at least this many links, this share of their text linked, are link lists. */
const LINK_LIST_MIN_LINKS = 5;
const LINK_LIST_DENSITY = 0.8;

/** Removes what `rules` calls hidden or boilerplate from the document, in place. */
export function removeBoilerplate(document: DomDocument, rules: HtmlRules): void {
  const body = document.body ?? document.documentElement;
  removeAll(all(body, rules.removed.join(', ')));
  if (rules.hiddenAttributes) removeAll(all(body, HIDDEN_ATTRIBUTES));
  if (rules.hiddenStyles) removeAll(all(body, '[style]').filter((element) => HIDDEN_STYLE.test(element.getAttribute('style') ?? '')));
  if (rules.pageHeader) {
    // A <header> inside an article is the article's own heading (title, byline), not the site banner.
    removeAll(all(body, 'header').filter((header) => header.parentElement?.closest('article, main') == null));
  }
  const bodyLength = inlineText(body).length;
  const wrapsPage = (element: DomElement): boolean =>
    element.querySelector('main, article, [role="main"], h1') !== null || (bodyLength > 200 && inlineText(element).length > bodyLength / 2);
  if (rules.chromeTags.length > 0) removeAll(all(body, rules.chromeTags.join(', ')).filter((element) => !wrapsPage(element)));
  const names = rules.chromeNames;
  if (names !== undefined) {
    const named = all(body, '[class], [id]').filter((element) => {
      if (NEVER_NAMED_CHROME.has(element.tagName.toUpperCase())) return false;
      const words = `${element.id} ${typeof element.className === 'string' ? element.className : ''}`.toLowerCase();
      return (names.tokens.test(words) || names.anywhere.test(words)) && !wrapsPage(element);
    });
    removeAll(named);
  }
  if (rules.linkLists) {
    const before = textLength(body);
    const lists = all(body, 'ul, ol, dl, menu, table').filter(isLinkList);
    const removed = lists.reduce((sum, element) => sum + textLength(element), 0);
    // A page that is mostly links (a directory, a sitemap page) keeps them: they are its content.
    if (removed < before * 0.5) removeAll(lists);
  }
}

function all(root: DomElement, selector: string): DomElement[] {
  return Array.from(root.querySelectorAll(selector));
}

/** Removing an element whose ancestor is already gone is harmless; order does not matter. */
function removeAll(elements: readonly DomElement[]): void {
  for (const element of elements) element.remove();
}

function isLinkList(element: DomElement): boolean {
  // A list of links inside a table cell is that cell's value (an infobox's "Key people").
  if (element.parentElement?.closest('td, th') != null) return false;
  const links = all(element, 'a');
  if (links.length < LINK_LIST_MIN_LINKS) return false;
  const total = textLength(element);
  const linked = links.reduce((sum, link) => sum + textLength(link), 0);
  return total > 0 && linked / total >= LINK_LIST_DENSITY;
}

function textLength(element: DomElement): number {
  return (element.textContent ?? '').replace(/\s+/g, '').length;
}
