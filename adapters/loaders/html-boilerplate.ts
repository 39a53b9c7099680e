interface ElementLike {
  textContent: string | null;
  className?: string;
  id?: string;
  parentElement: ElementLike | null;
  querySelectorAll(selector: string): ArrayLike<ElementLike> & Iterable<ElementLike>;
  closest(selector: string): ElementLike | null;
  remove(): void;
}

/**
 * Removed before extraction. `header` is handled apart: a page header goes, an article's header
 * (its title, byline) stays. Also gone: content never shown (scripts, styles, hidden elements).
 */
const REMOVED_SELECTOR = [
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'canvas',
  'iframe',
  'object',
  'embed',
  'select',
  'button',
  'nav',
  'footer',
  'aside',
  'form',
  'dialog',
  'input',
  'label',
  '[hidden]',
  '[aria-hidden="true"]',
  '[role="navigation"]',
  '[role="banner"]',
  '[role="contentinfo"]',
  '[role="complementary"]',
  '[role="search"]',
  '[role="dialog"]',
  '[role="menu"]',
  '[role="toolbar"]',
].join(',');

/** Class or id words that name page chrome rather than content. */
const CHROME_WORDS =
  /(^|[\s_-])(nav|navbar|navbox|navigation|menu|sidebar|breadcrumbs?|cookies?|toc|skip|jump|toolbar|share|social)([\s_-]|$)/i;

/** Lists and tables that are nearly all links (language pickers, link farms, navboxes). */
const LINK_LIST_MIN_LINKS = 5;
const LINK_LIST_DENSITY = 0.8;

export function removeBoilerplate(body: ElementLike): void {
  for (const element of [...body.querySelectorAll(REMOVED_SELECTOR)]) element.remove();
  for (const header of [...body.querySelectorAll('header')]) {
    if (header.parentElement?.closest('article, main') == null) header.remove();
  }
  for (const element of [...body.querySelectorAll('[class], [id]')]) {
    if (isChrome(element)) element.remove();
  }
  const before = textLength(body);
  const linkLists = [...body.querySelectorAll('ul, ol, dl, menu, table')].filter(isLinkList);
  const removed = linkLists.reduce((sum, element) => sum + textLength(element), 0);
  // A page that is mostly links (a directory, a sitemap page) keeps them: they are its content.
  if (removed < before * 0.5) for (const element of linkLists) element.remove();
}

function isChrome(element: ElementLike): boolean {
  const words = `${typeof element.className === 'string' ? element.className : ''} ${element.id ?? ''}`;
  // A wrapper named "sidebar-layout" may hold the article itself.
  return CHROME_WORDS.test(words) && element.querySelectorAll('main, article, [role="main"], h1').length === 0;
}

function isLinkList(element: ElementLike): boolean {
  // A list of links inside a table cell is that cell's value (an infobox's "Key people").
  if (element.parentElement?.closest('td, th') != null) return false;
  const links = [...element.querySelectorAll('a')];
  if (links.length < LINK_LIST_MIN_LINKS) return false;
  const total = textLength(element);
  const linked = links.reduce((sum, link) => sum + textLength(link), 0);
  return total > 0 && linked / total >= LINK_LIST_DENSITY;
}

function textLength(element: ElementLike): number {
  return (element.textContent ?? '').replace(/\s+/g, '').length;
}
