import type { ComponentChildren, VNode } from 'preact';

/**
 * A small Markdown renderer for model answers that builds Preact nodes directly, never HTML
 * strings: whatever the text holds (`<script>`, `<img onerror>`), it reaches the page as text.
 * Covers what answers use: paragraphs, headings, lists, GFM tables, fenced and inline code,
 * emphasis, links (http, https and mailto only) and bracketed citations.
 */
export function Markdown({ text, cite }: { text: string; cite?: CiteRenderer }): VNode {
  return <div class="md">{blocks(text, cite)}</div>;
}

/** Draws one citation number; called once per number, in reading order. */
export type CiteRenderer = (n: number) => ComponentChildren;

function blocks(text: string, cite: CiteRenderer | undefined): VNode[] {
  const inline = (value: string) => inlineNodes(value, cite);
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: VNode[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] as string;
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      const code: string[] = [];
      index++;
      while (index < lines.length && !(lines[index] as string).trim().startsWith(fence[1] as string)) code.push(lines[index++] as string);
      index++;
      out.push(
        <pre key={out.length}>
          <code>{code.join('\n')}</code>
        </pre>,
      );
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = Math.min(6, (heading[1] as string).length + 2);
      const Tag = `h${level}` as 'h3';
      out.push(<Tag key={out.length}>{inline(heading[2] as string)}</Tag>);
      index++;
      continue;
    }
    const item = /^\s*([-*+]|\d+[.)])\s+/;
    if (item.test(line)) {
      const ordered = /\d/.test((item.exec(line) as RegExpExecArray)[1] as string);
      const items: VNode[] = [];
      while (index < lines.length && item.test(lines[index] as string)) {
        items.push(<li key={items.length}>{inline((lines[index] as string).replace(item, ''))}</li>);
        index++;
      }
      out.push(ordered ? <ol key={out.length}>{items}</ol> : <ul key={out.length}>{items}</ul>);
      continue;
    }
    if (isTableStart(lines, index)) {
      const header = cells(line);
      const aligns = cells(lines[index + 1] as string).map(alignOf);
      index += 2;
      const rows: string[][] = [];
      while (index < lines.length && (lines[index] as string).includes('|') && (lines[index] as string).trim() !== '')
        rows.push(cells(lines[index++] as string));
      out.push(
        <div key={out.length} class="md-table">
          <table>
            <thead>
              <tr>
                {header.map((cell, column) => (
                  <th key={column} style={aligns[column] ? { textAlign: aligns[column] } : undefined}>
                    {inline(cell)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row, rowIndex) => (
                <tr key={rowIndex}>
                  {header.map((_, column) => (
                    <td key={column} style={aligns[column] ? { textAlign: aligns[column] } : undefined}>
                      {inline(row[column] ?? '')}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>,
      );
      continue;
    }
    if (line.trim() === '') {
      index++;
      continue;
    }
    const paragraph: string[] = [];
    while (index < lines.length) {
      const next = lines[index] as string;
      if (next.trim() === '' || /^\s*(```|~~~)/.test(next) || /^#{1,6}\s/.test(next) || item.test(next) || isTableStart(lines, index))
        break;
      paragraph.push(next);
      index++;
    }
    out.push(<p key={out.length}>{inline(paragraph.join('\n'))}</p>);
  }
  return out;
}

/** A GFM table starts with a row holding a pipe, followed by a delimiter row (`| --- | :-: |`) with as many cells. */
function isTableStart(lines: string[], index: number): boolean {
  const head = lines[index];
  const delimiter = lines[index + 1];
  if (head === undefined || delimiter === undefined || !head.includes('|')) return false;
  const marks = cells(delimiter);
  return marks.length > 0 && marks.every((mark) => /^:?-+:?$/.test(mark)) && marks.length === cells(head).length;
}

/** The cells of a table row: outer pipes optional, `\|` is a literal pipe. */
function cells(row: string): string[] {
  let trimmed = row.trim();
  if (trimmed.startsWith('|')) trimmed = trimmed.slice(1);
  if (trimmed.endsWith('|') && !trimmed.endsWith('\\|')) trimmed = trimmed.slice(0, -1);
  return trimmed.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

function alignOf(mark: string): 'left' | 'right' | 'center' | undefined {
  if (mark.startsWith(':') && mark.endsWith(':')) return 'center';
  if (mark.endsWith(':')) return 'right';
  return mark.startsWith(':') ? 'left' : undefined;
}

/**
 * Code spans, strong, emphasis (underscores only at word edges, so `snake_case` stays), links,
 * bare URLs, citations (`[2]`, `[1, 3]`).
 */
const INLINE =
  /(`+)([^`]+?)\1|\*\*([^*]+)\*\*|(?<!\w)__([^_]+)__(?!\w)|\*([^*\s][^*]*)\*|(?<!\w)_([^_\s][^_]*)_(?!\w)|\[([^\]]+)\]\(([^)\s]+)\)|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])|\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\]/g;

function inlineNodes(text: string, cite: CiteRenderer | undefined): ComponentChildren[] {
  const inline = (value: string) => inlineNodes(value, cite);
  const out: ComponentChildren[] = [];
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    const at = match.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    last = at + match[0].length;
    const key = out.length;
    if (match[2] !== undefined) out.push(<code key={key}>{match[2]}</code>);
    else if (match[3] !== undefined || match[4] !== undefined)
      out.push(<strong key={key}>{inline((match[3] ?? match[4]) as string)}</strong>);
    else if (match[5] !== undefined || match[6] !== undefined) out.push(<em key={key}>{inline((match[5] ?? match[6]) as string)}</em>);
    else if (match[7] !== undefined) {
      const href = safeHref(match[8] as string);
      out.push(
        href ? (
          <a key={key} href={href} target="_blank" rel="noopener noreferrer nofollow">
            {inline(match[7])}
          </a>
        ) : (
          match[0]
        ),
      );
    } else if (match[9] !== undefined) {
      out.push(
        <a key={key} href={match[9]} target="_blank" rel="noopener noreferrer nofollow">
          {match[9]}
        </a>,
      );
    } else if (match[10] !== undefined) {
      const numbers = match[10].split(',').map((part) => Number(part.trim()));
      out.push(
        cite ? (
          <span key={key} class="cites">
            {numbers.map((n) => cite(n))}
          </span>
        ) : (
          match[0]
        ),
      );
    }
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** Only web and mail links: `javascript:`, `data:` and the like stay plain text. */
export function safeHref(url: string): string | null {
  try {
    const parsed = new URL(url);
    return ['http:', 'https:', 'mailto:'].includes(parsed.protocol) ? parsed.href : null;
  } catch {
    return null;
  }
}
