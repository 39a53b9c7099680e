import { describe, expect, it } from 'vitest';
import { eachElement, hasText, inlineText, removeNode, textContent, type HtmlElement } from '../../../../adapters/loaders/html/dom.js';
import { parseHtml } from '../../../../adapters/loaders/html/parse-html.js';

function documentOf(html: string): HtmlElement {
  const parsed = parseHtml(html);
  if (!('document' in parsed)) throw new Error('over a limit');
  return parsed.document;
}

const names = (root: HtmlElement, visit?: (element: HtmlElement) => 'skip' | 'stop' | void): string[] => {
  const seen: string[] = [];
  eachElement(root, (element) => {
    seen.push(element.name);
    return visit?.(element);
  });
  return seen;
};

describe('the extractor tree', () => {
  it('is built with lower-case names, decoded entities, merged text runs and no comments', () => {
    const document = documentOf('<DIV Class="x" class="y">a &amp; <!-- c -->b</DIV>');
    const div = document.firstChild as HtmlElement;
    expect(div).toMatchObject({ kind: 'element', name: 'div', attributes: { class: 'x' } });
    expect(div.firstChild).toMatchObject({ kind: 'text', data: 'a & b', next: null });
  });

  it('walks elements in document order, can skip a subtree or stop, never leaves the root', () => {
    const document = documentOf('<a><b><c></c></b><d></d></a><e></e>');
    expect(names(document)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(names(document, (element) => (element.name === 'b' ? 'skip' : undefined))).toEqual(['a', 'b', 'd', 'e']);
    expect(names(document, (element) => (element.name === 'c' ? 'stop' : undefined))).toEqual(['a', 'b', 'c']);
    expect(names(document.firstChild as HtmlElement)).toEqual(['b', 'c', 'd']);
  });

  it('removes a node in place, and a second removal or one inside it changes nothing', () => {
    const document = documentOf('<p>one <b>two <i>three</i></b> four</p>');
    const bold = (document.firstChild as HtmlElement).firstChild!.next as HtmlElement;
    const italic = bold.lastChild as HtmlElement;
    removeNode(bold);
    removeNode(bold);
    removeNode(italic);
    expect(textContent(document)).toBe('one  four');
    expect(inlineText(document)).toBe('one four');
  });

  it('tells whether an element holds more than whitespace', () => {
    const document = documentOf('<div> \n <span> </span></div><p> <b></b>x</p>');
    const [div, p] = [document.firstChild as HtmlElement, document.lastChild as HtmlElement];
    expect(hasText(div)).toBe(false);
    expect(hasText(p)).toBe(true);
  });
});
