import type { LoadedSection } from '../../src/ports/loader.js';
import { payloadTooLarge } from './loader-errors.js';

/** Tables wider than this are refused by default: every row would be a wall of cells, and the header repeated above each group of rows multiplied the file (a 1,000,000-column header became 60,000 chunks). */
export const DEFAULT_MAX_TABLE_COLUMNS = 1_000;

export interface TableSectionOptions {
  label?: string;
  pageNumber?: number;
  /** Data rows per section (default 30). */
  rowsPerSection?: number;
  /** A line put above the header of every section, e.g. the sheet name. */
  caption?: string;
  /** A section is closed early once its text passes this many characters (default 1,500, so a section stays under the default 512-token chunk). */
  maxChars?: number;
  /** A table with more columns is refused with `payload_too_large`, reason `too_many_columns` (default 1,000). */
  maxColumns?: number;
}

/** The repeated header takes at most this share of a section's `maxChars`; the first section always has it whole. */
const HEADER_SHARE = 0.5;

export function tooManyColumns(columns: number, maxColumns: number): Error {
  return payloadTooLarge(`the table has more columns than the limit of ${maxColumns} (maxTableColumns)`, {
    reason: 'too_many_columns',
    columns,
    maxColumns,
  });
}

/** One table row as a Markdown table line; pipes and line breaks inside cells are escaped. */
export function tableLine(cells: readonly string[]): string {
  const escaped = cells.map((cell) =>
    cell
      .replace(/\|/g, '\\|')
      // From the start of a whitespace run only: tried inside a run with no line break, the former
      // `\s*\r?\n\s*` was quadratic in it (a cell of 20,000 spaces: 0.7 s).
      .replace(/(?<!\s)\s*\r?\n\s*/g, ' ')
      .trim(),
  );
  return `| ${escaped.join(' | ')} |`;
}

/**
 * Splits a table into sections of rows, each starting with the header row (the first row) and a
 * Markdown separator, so every section, and the chunk cut from it, still names its columns. A
 * header longer than half a section is given whole to the first section only; later ones repeat
 * the columns that fit in that half and mark the rest with `…`, so a wide header cannot multiply
 * the text (each section would otherwise be mostly header, its rows cut into chunks of their own).
 */
export function tableSections(rows: readonly (readonly string[])[], options: TableSectionOptions = {}): LoadedSection[] {
  const [header, ...body] = rows;
  if (header === undefined) return [];
  // A loop, not Math.max(...rows): spreading a million rows overflows the call stack.
  let width = 0;
  for (const row of rows) width = Math.max(width, row.length);
  const maxColumns = options.maxColumns ?? DEFAULT_MAX_TABLE_COLUMNS;
  if (width > maxColumns) throw tooManyColumns(width, maxColumns);
  const pad = (row: readonly string[]): string[] => [...row, ...Array<string>(width - row.length).fill('')];
  const rowsPerSection = options.rowsPerSection ?? 30;
  const maxChars = options.maxChars ?? 1500;
  const withCaption = (table: string) => (options.caption === undefined ? table : `${options.caption}\n${table}`);
  const firstTop = withCaption(`${tableLine(pad(header))}\n${tableLine(Array<string>(width).fill('---'))}`);
  const repeatedTop =
    firstTop.length <= maxChars * HEADER_SHARE ? firstTop : withCaption(shortHeader(pad(header), maxChars * HEADER_SHARE));
  let top = firstTop;
  const sections: LoadedSection[] = [];
  let lines: string[] = [];
  let size = top.length;
  const close = (): void => {
    sections.push({
      text: [top, ...lines].join('\n'),
      standalone: true,
      ...(options.pageNumber === undefined ? {} : { pageNumber: options.pageNumber }),
      ...(options.label === undefined ? {} : { label: options.label }),
    });
    lines = [];
    top = repeatedTop;
    size = top.length;
  };
  for (const row of body) {
    const line = tableLine(pad(row));
    if (lines.length > 0 && (lines.length >= rowsPerSection || size + line.length > maxChars)) close();
    lines.push(line);
    size += line.length + 1;
  }
  if (lines.length > 0 || sections.length === 0) close();
  return sections;
}

/** The leading header cells that fit in `maxChars` (at least one), then `…` for the rest. */
function shortHeader(header: readonly string[], maxChars: number): string {
  const kept: string[] = [];
  let length = 0;
  for (const cell of header) {
    // Each cell costs its text plus ` | ` in the header line and `--- | ` in the separator.
    const cost = tableLine([cell]).length + 6;
    if (kept.length > 0 && length + cost > maxChars) break;
    kept.push(cell);
    length += cost;
  }
  return `${tableLine([...kept, '…'])}\n${tableLine(Array<string>(kept.length + 1).fill('---'))}`;
}
