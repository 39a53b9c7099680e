import { describe, expect, it } from 'vitest';
import type { HtmlElement } from '../../../../adapters/loaders/html/dom.js';
import { parseHtml } from '../../../../adapters/loaders/html/parse-html.js';
import { closest, selectAll, selectFirst, selectorTest } from '../../../../adapters/loaders/html/selector.js';

function documentOf(html: string): HtmlElement {
  const parsed = parseHtml(html);
  if (!('document' in parsed)) throw new Error('over a limit');
  return parsed.document;
}

const ids = (elements: readonly HtmlElement[]): string[] => elements.map((element) => element.attributes.id ?? '?');

describe('selector', () => {
  const document = documentOf(
    '<div id="a" role="main"><NAV id="b" HIDDEN></NAV><p id="c" aria-hidden="true"><span id="d" role="navigation menu"></span></p></div><nav id="e"></nav>',
  );

  it('matches tag lists, attribute presence and exact values, in document order', () => {
    expect(ids(selectAll(document, 'nav, p'))).toEqual(['b', 'c', 'e']);
    expect(ids(selectAll(document, '[hidden], [aria-hidden="true"]'))).toEqual(['b', 'c']);
    expect(ids(selectAll(document, '[role="main"]'))).toEqual(['a']);
    // An exact value is the whole attribute, as in CSS: "navigation menu" is not "navigation".
    expect(selectAll(document, '[role="navigation"]')).toEqual([]);
    expect(ids(selectAll(document, "nav[hidden], span[role='navigation menu']"))).toEqual(['b', 'd']);
    expect(ids(selectAll(document, '*[id="e"]'))).toEqual(['e']);
  });

  it('finds the first match, the nearest ancestor-or-self, and nothing for an empty list', () => {
    expect(selectFirst(document, 'p, nav')?.attributes.id).toBe('b');
    expect(selectFirst(document, 'table')).toBeUndefined();
    const span = selectFirst(document, 'span')!;
    expect(closest(span, 'div')?.attributes.id).toBe('a');
    expect(closest(span, 'span')?.attributes.id).toBe('d');
    expect(closest(span, 'article')).toBeUndefined();
    expect(selectAll(document, '')).toEqual([]);
  });

  it('refuses selectors it cannot honour instead of matching them wrongly', () => {
    for (const selector of ['div p', 'div > p', '.menu', '#main', 'a:first-child', '[role^="nav"]', 'p,,div']) {
      expect(() => selectorTest(selector), selector).toThrow(/unsupported selector/);
    }
  });
});
