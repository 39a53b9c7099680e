/**
 * An `innerText`-like walk over the parsed tree: block elements on their own lines, paragraphs,
 * headings, lists and tables separated by a blank line (so a heading starts the paragraph the
 * chunker prefers to cut before), inline whitespace collapsed, `<pre>` kept as written. A DOM's own
 * `innerText` (linkedom's) glues some blocks together.
 */
import { tableLine } from '../table-text.js';
import { type HtmlElement, type HtmlNode } from './dom.js';
import type { HtmlRules } from './rules.js';
import { closest, selectAll, selectFirst } from './selector.js';

type TextRules = Pick<HtmlRules, 'altText' | 'tables'>;

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
/**
 * Zero-width spaces and word joiners some generators put after headings (anchor targets): no reader
 * sees them. Zero-width (non-)joiners stay: Persian, Indic scripts and emoji sequences need them.
 */
const INVISIBLE = /[\u200b\u2060\ufeff]/g;

class TextBuilder {
  private readonly parts: string[] = [];
  private pendingBreaks = 0;
  private lastChar = '\n';

  lineBreak(count: number): void {
    if (this.parts.length > 0) this.pendingBreaks = Math.max(this.pendingBreaks, count);
  }

  append(raw: string, preformatted: boolean): void {
    let text = preformatted ? raw : raw.replace(INVISIBLE, '').replace(/\s+/g, ' ');
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

/** Text of `root` in reading order, with line structure. */
export function visibleText(root: HtmlNode, rules: TextRules): string {
  const out = new TextBuilder();
  walk(root, out, false, rules);
  return out.toString();
}

function walk(node: HtmlNode, out: TextBuilder, preformatted: boolean, rules: TextRules): void {
  if (node.kind === 'text') return out.append(node.data, preformatted);
  const tag = node.name;
  // Only reached on a page without <body>, walked from <html>: the head is never shown.
  if (tag === 'head') return;
  if (tag === 'br') return out.lineBreak(1);
  if (tag === 'img') {
    const alt = altText(node, rules);
    if (alt) out.append(` ${alt} `, false);
    return;
  }
  if (tag === 'table' && rules.tables === 'pipes' && isDataTable(node)) {
    out.lineBreak(2);
    for (const line of tableLines(node, rules)) {
      out.append(line, true);
      out.lineBreak(1);
    }
    return out.lineBreak(2);
  }
  const breaks = PARAGRAPHS.has(tag) ? (isNestedList(node, tag) ? 1 : 2) : LINES.has(tag) ? 1 : 0;
  if (breaks) out.lineBreak(breaks);
  const inner = preformatted || tag === 'pre';
  for (let child = node.firstChild; child; child = child.next) walk(child, out, inner, rules);
  if (breaks) out.lineBreak(breaks);
  else if (CELLS.has(tag)) out.append(' ', false);
}

/** A list inside a list item continues that list: its items stay on the next lines, without a gap. */
function isNestedList(element: HtmlElement, tag: string): boolean {
  return (tag === 'ul' || tag === 'ol') && element.parent?.name === 'li';
}

function altText(image: HtmlElement, rules: TextRules): string {
  if (rules.altText === 'none') return '';
  if (rules.altText === 'not-icons' && isIcon(image)) return '';
  // An image inside a link is most often an icon or a thumbnail whose alt repeats the link's purpose.
  if (rules.altText === 'outside-links' && closest(image, 'a') !== undefined) return '';
  return (image.attributes.alt ?? '').replace(/\s+/g, ' ').trim();
}

/** Declared at most this size in either direction: an icon (edit pencils, trend arrows, locks). */
const ICON_PX = 32;

function isIcon(image: HtmlElement): boolean {
  return ['width', 'height'].some((name) => {
    const size = Number.parseFloat(image.attributes[name] ?? '');
    return size > 0 && size <= ICON_PX;
  });
}

/** A table holding another table lays the page out; its cells are read as blocks, not as a grid. */
function isDataTable(table: HtmlElement): boolean {
  return selectFirst(table, 'table') === undefined;
}

/** Caption, then one Markdown line per row with cells; empty rows are left out. */
function tableLines(table: HtmlElement, rules: TextRules): string[] {
  const lines: string[] = [];
  const caption = selectFirst(table, 'caption');
  if (caption) {
    const text = cellText(caption, rules);
    if (text) lines.push(text);
  }
  for (const row of selectAll(table, 'tr')) {
    const cells: string[] = [];
    for (let child = row.firstChild; child; child = child.next) {
      if (child.kind === 'element' && CELLS.has(child.name)) cells.push(cellText(child, rules));
    }
    if (cells.some((cell) => cell !== '')) lines.push(tableLine(cells));
  }
  return lines;
}

/** A cell stays on its row's line whatever blocks it holds. */
function cellText(cell: HtmlNode, rules: TextRules): string {
  return visibleText(cell, rules).replace(/\s+/g, ' ');
}
