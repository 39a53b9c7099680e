/**
 * An `innerText`-like walk over a linkedom tree: block elements on their own lines, paragraphs and
 * headings separated by a blank line, inline whitespace collapsed, `<pre>` kept as written.
 * (linkedom's own `innerText` glues some blocks together and keeps hidden text.)
 */

/** The slice of the DOM the extractor uses, typed here so the project needs no DOM lib. */
export interface DomNode {
  nodeType: number;
  nodeName: string;
  firstChild: DomNode | null;
  nextSibling: DomNode | null;
  textContent: string | null;
}

export interface DomElement extends DomNode {
  tagName: string;
  id: string;
  className: string;
  getAttribute(name: string): string | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
  parentElement: DomElement | null;
  closest(selector: string): DomElement | null;
  remove(): void;
}

const TEXT_NODE = 3;
const ELEMENT_NODE = 1;

/** Separated from their neighbours by a blank line. */
const PARAGRAPHS = new Set([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'pre',
  'blockquote',
  'table',
  'ul',
  'ol',
  'dl',
  'section',
  'article',
  'main',
  'figure',
  'details',
  'address',
  'hr',
]);
/** Start and end on their own line. */
const LINES = new Set([
  'div',
  'li',
  'tr',
  'dt',
  'dd',
  'summary',
  'figcaption',
  'caption',
  'header',
  'footer',
  'nav',
  'aside',
  'fieldset',
  'legend',
  'center',
  'body',
  'html',
  'thead',
  'tbody',
  'tfoot',
]);
const CELLS = new Set(['td', 'th']);

class TextBuilder {
  private readonly parts: string[] = [];
  private pendingBreaks = 0;
  private lastChar = '\n';

  lineBreak(count: number): void {
    if (this.parts.length > 0) this.pendingBreaks = Math.max(this.pendingBreaks, count);
  }

  append(raw: string, preformatted: boolean): void {
    let text = preformatted ? raw : raw.replace(/\s+/g, ' ');
    const atLineStart = this.pendingBreaks > 0 || this.lastChar === '\n';
    if (!preformatted && (atLineStart || this.lastChar === ' ')) text = text.replace(/^ /, '');
    if (!text) return;
    if (this.pendingBreaks > 0) {
      this.parts.push('\n'.repeat(this.pendingBreaks));
      this.pendingBreaks = 0;
    }
    this.parts.push(text);
    this.lastChar = text[text.length - 1]!;
  }

  toString(): string {
    return this.parts
      .join('')
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  }
}

function walk(node: DomNode, out: TextBuilder, preformatted: boolean): void {
  if (node.nodeType === TEXT_NODE) {
    out.append(node.textContent ?? '', preformatted);
    return;
  }
  if (node.nodeType !== ELEMENT_NODE) return;
  const tag = node.nodeName.toLowerCase();
  if (tag === 'br') {
    out.lineBreak(1);
    return;
  }
  const breaks = PARAGRAPHS.has(tag) ? 2 : LINES.has(tag) ? 1 : 0;
  if (breaks) out.lineBreak(breaks);
  const inner = preformatted || tag === 'pre' || tag === 'textarea';
  // Sibling links, not `childNodes[i]`: linkedom rebuilds `childNodes` on every access.
  for (let child = node.firstChild; child; child = child.nextSibling) walk(child, out, inner);
  if (breaks) out.lineBreak(breaks);
  else if (CELLS.has(tag)) out.append(' ', false);
}

/** Text of `root` in reading order, with line structure. */
export function visibleText(root: DomNode): string {
  const out = new TextBuilder();
  walk(root, out, false);
  return out.toString();
}

/** Whitespace-collapsed text, for titles and headings. */
export function inlineText(node: DomNode | null | undefined): string {
  return (node?.textContent ?? '').replace(/\s+/g, ' ').trim();
}
