const BLOCK = new Set([
  'ADDRESS',
  'ARTICLE',
  'BLOCKQUOTE',
  'BODY',
  'CAPTION',
  'DD',
  'DETAILS',
  'DIV',
  'DL',
  'DT',
  'FIELDSET',
  'FIGCAPTION',
  'FIGURE',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HR',
  'LI',
  'MAIN',
  'OL',
  'P',
  'PRE',
  'SECTION',
  'SUMMARY',
  'TABLE',
  'TBODY',
  'TFOOT',
  'THEAD',
  'TR',
  'UL',
]);

/** Marks a paragraph break while lines are assembled (a private-use character, which trim() keeps). */
const PARAGRAPH = '\ue000';

interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
  getAttribute?(name: string): string | null;
}

/**
 * Visible text of an element in reading order: block elements (paragraphs, headings, list items,
 * table rows) on their own lines, table cells separated by ` | `, runs of spaces collapsed except in
 * `<pre>`, image alt texts kept.
 */
export function visibleText(root: DomNode): string {
  const out: string[] = [];
  walk(root, out, false);
  const lines = out
    .join('')
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .filter((line) => line !== '');
  // Paragraph marks become one blank line; repeated or leading/trailing ones disappear.
  return lines
    .filter((line, index) => line !== PARAGRAPH || (index > 0 && lines[index - 1] !== PARAGRAPH))
    .map((line) => (line === PARAGRAPH ? '' : line))
    .join('\n')
    .trim();
}

function walk(node: DomNode, out: string[], pre: boolean): void {
  if (node.nodeType === 3) {
    const text = node.textContent ?? '';
    out.push(pre ? text : text.replace(/\s+/g, ' '));
    return;
  }
  if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return;
  const tag = node.nodeName.toUpperCase();
  if (tag === 'BR') return void out.push('\n');
  if (tag === 'IMG') {
    const alt = node.getAttribute?.('alt')?.trim();
    if (alt) out.push(` ${alt} `);
    return;
  }
  const block = BLOCK.has(tag);
  const paragraphLike = /^(H[1-6]|P|PRE|TABLE|BLOCKQUOTE|UL|OL)$/.test(tag);
  if (block) out.push(paragraphLike ? `\n${PARAGRAPH}\n` : '\n');
  const children = node.childNodes;
  if (tag === 'TD' || tag === 'TH') {
    // A cell stays on its row's line whatever blocks it holds.
    const cell: string[] = [];
    for (let index = 0; index < children.length; index++) walk(children[index] as DomNode, cell, false);
    out.push(` | ${cell.join('').replace(/\s+/g, ' ').trim()}`);
    return;
  }
  for (let index = 0; index < children.length; index++) {
    walk(children[index] as DomNode, out, pre || tag === 'PRE');
  }
  if (tag === 'TR') out.push(' |');
  if (block) out.push(paragraphLike ? `\n${PARAGRAPH}\n` : '\n');
}
