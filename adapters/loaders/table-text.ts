import type { LoadedSection } from '../../src/ports/loader.js';

export interface TableSectionOptions {
  label?: string;
  pageNumber?: number;
  /** Data rows per section (default 30). */
  rowsPerSection?: number;
  /** A line put above the header of every section, e.g. the sheet name. */
  caption?: string;
  /** A section is closed early once its text passes this many characters (default 1,500, so a section stays under the default 512-token chunk). */
  maxChars?: number;
}

/** One table row as a Markdown table line; pipes and line breaks inside cells are escaped. */
export function tableLine(cells: readonly string[]): string {
  const escaped = cells.map((cell) => cell.replace(/\|/g, '\\|').replace(/\s*\r?\n\s*/g, ' ').trim());
  return `| ${escaped.join(' | ')} |`;
}

/**
 * Splits a table into sections of rows, each starting with the header row (the first row) and a
 * Markdown separator, so every section, and the chunk cut from it, still names its columns.
 */
export function tableSections(rows: readonly (readonly string[])[], options: TableSectionOptions = {}): LoadedSection[] {
  const [header, ...body] = rows;
  if (header === undefined) return [];
  const width = Math.max(...rows.map((row) => row.length));
  const pad = (row: readonly string[]): string[] => [...row, ...Array<string>(width - row.length).fill('')];
  const table = `${tableLine(pad(header))}\n${tableLine(Array<string>(width).fill('---'))}`;
  const top = options.caption === undefined ? table : `${options.caption}\n${table}`;
  const rowsPerSection = options.rowsPerSection ?? 30;
  const maxChars = options.maxChars ?? 1500;
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
