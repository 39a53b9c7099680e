import { eachElement, inlineText, removeNode, textContent, type HtmlElement } from './dom.js';
import type { HtmlRules } from './rules.js';
import { closest, selectAll, selectFirst, selectorTest } from './selector.js';

const HIDDEN_STYLE = /display\s*:\s*none|visibility\s*:\s*hidden/i;
const NEVER_NAMED_CHROME = new Set(['html', 'body', 'main', 'article']);
/** Lists and tables with at least this many links, this share of their text linked, are link lists. */
const LINK_LIST_MIN_LINKS = 5;
const LINK_LIST_DENSITY = 0.8;

/**
 * Removes what `rules` calls hidden or boilerplate from `body`, in place. Three walks of the tree
 * whatever the rules: one removes what is hidden or never shown (independent tests, so one walk
 * removing the union leaves what the tests applied one after the other left), one measures the
 * text, one gathers the candidates of the size-dependent rules, which are then judged in the
 * order they always were (page chrome, chrome by name, link lists), each on what the previous left.
 */
export function removeBoilerplate(body: HtmlElement, rules: HtmlRules): void {
  const hidden = hiddenTest(rules);
  const gone: HtmlElement[] = [];
  eachElement(body, (element) => {
    if (!hidden(element)) return;
    gone.push(element);
    return 'skip';
  });
  removeAll(gone);

  const bodyLength = inlineText(body).length;
  const wrapsPage = (element: HtmlElement): boolean =>
    selectFirst(element, 'main, article, [role="main"], h1') !== undefined ||
    (bodyLength > 200 && inlineText(element).length > bodyLength / 2);
  const isChromeTag = selectorTest(rules.chromeTags.join(', '));
  const names = rules.chromeNames;
  const chrome: HtmlElement[] = [];
  const named: HtmlElement[] = [];
  const lists: HtmlElement[] = [];
  eachElement(body, (element) => {
    if (isChromeTag(element)) chrome.push(element);
    if (names !== undefined && isNamedChrome(element, names)) named.push(element);
    if (rules.linkLists && LISTS.has(element.name)) lists.push(element);
  });
  removeAll(chrome.filter((element) => !wrapsPage(element)));
  removeAll(named.filter((element) => isAttached(element, body) && !wrapsPage(element)));
  const linkLists = lists.filter((element) => isAttached(element, body) && isLinkList(element));
  if (linkLists.length > 0) {
    const removed = linkLists.reduce((sum, element) => sum + textLength(element), 0);
    // A page that is mostly links (a directory, a sitemap page) keeps them: they are its content.
    if (removed < textLength(body) * 0.5) removeAll(linkLists);
  }
}

const LISTS = new Set(['ul', 'ol', 'dl', 'menu', 'table']);

/** Never shown, hidden, or the site's banner: removed with all it holds. */
function hiddenTest(rules: HtmlRules): (element: HtmlElement) => boolean {
  const removed = selectorTest(rules.removed.join(', '));
  return (element) => {
    if (removed(element)) return true;
    const { attributes } = element;
    if (rules.hiddenAttributes && (attributes.hidden !== undefined || attributes['aria-hidden'] === 'true')) return true;
    if (rules.hiddenStyles && attributes.style !== undefined && HIDDEN_STYLE.test(attributes.style)) return true;
    // A <header> inside an article is the article's own heading (title, byline), not the site banner.
    return rules.pageHeader && element.name === 'header' && closest(element.parent, 'article, main') === undefined;
  };
}

function isNamedChrome(element: HtmlElement, names: NonNullable<HtmlRules['chromeNames']>): boolean {
  const { id, class: className } = element.attributes;
  if ((id === undefined && className === undefined) || NEVER_NAMED_CHROME.has(element.name)) return false;
  const words = `${id ?? ''} ${className ?? ''}`.toLowerCase();
  return names.tokens.test(words) || names.anywhere.test(words);
}

/** Still in the tree under `root`: not removed, nor inside something removed. */
function isAttached(element: HtmlElement, root: HtmlElement): boolean {
  for (let current: HtmlElement | null = element; current; current = current.parent) if (current === root) return true;
  return false;
}

/** Removing an element whose ancestor is already gone is harmless; order does not matter. */
function removeAll(elements: readonly HtmlElement[]): void {
  for (const element of elements) removeNode(element);
}

function isLinkList(element: HtmlElement): boolean {
  // A list of links inside a table cell is that cell's value (an infobox's "Key people").
  if (closest(element.parent, 'td, th') !== undefined) return false;
  const links = selectAll(element, 'a');
  if (links.length < LINK_LIST_MIN_LINKS) return false;
  const total = textLength(element);
  const linked = links.reduce((sum, link) => sum + textLength(link), 0);
  return total > 0 && linked / total >= LINK_LIST_DENSITY;
}

function textLength(element: HtmlElement): number {
  return textContent(element).replace(/\s+/g, '').length;
}
