import type { LoadInput, LoadedDocument, Loader } from '../../src/ports/loader.js';
import { payloadTooLarge } from './loader-errors.js';
import { MIME } from './mime-types.js';
import { DEFAULT_MAX_TABLE_COLUMNS, tableSections, tooManyColumns } from './table-text.js';
import { readText } from './text-loaders.js';

export interface CsvOptions {
  /** Data rows per section, each section starting with the header row (default 30). */
  rowsPerSection?: number;
  /** A file with a row of more fields is refused with `payload_too_large`, reason `too_many_columns` (default 1,000). */
  maxColumns?: number;
  /** A file of more cells (fields of all rows) is refused with `payload_too_large`, reason `too_many_cells` (default 1,000,000). */
  maxCells?: number;
}

/**
 * Cells of one CSV file. Every cell becomes a string and then Markdown: a 45 MB file of 4.7 M cells
 * took 750 MB of heap and 9 s to read, past the parser process's 512 MB; a million cells take about
 * 160 MB (measured on 2026-11-28, ten columns of short values).
 */
export const DEFAULT_MAX_CSV_CELLS = 1_000_000;

function tooManyCells(maxCells: number): Error {
  return payloadTooLarge(`the CSV file has more cells than the limit of ${maxCells} (maxCsvCells)`, {
    reason: 'too_many_cells',
    maxCells,
  });
}

/** CSV (comma, semicolon or tab separated, RFC 4180 quoting) as Markdown table sections. */
export function csvLoader(options: CsvOptions = {}): Loader {
  return {
    name: 'csv',
    specificationVersion: 'v1',
    mimeTypes: [MIME.csv],
    async load(input: LoadInput): Promise<LoadedDocument> {
      const text = readText(input).replace(/^\uFEFF/, '');
      const maxColumns = options.maxColumns ?? DEFAULT_MAX_TABLE_COLUMNS;
      // Refused at the first row that is too wide, before 100,000 columns x 200 rows become 20 M strings.
      const maxCells = options.maxCells ?? DEFAULT_MAX_CSV_CELLS;
      const rows = parseCsv(text, guessDelimiter(text), maxColumns, maxCells).filter((row) => row.some((cell) => cell.trim() !== ''));
      return {
        mimeType: input.mimeType,
        sections: tableSections(rows, { rowsPerSection: options.rowsPerSection ?? 30, maxColumns }),
        metadata: { rows: Math.max(0, rows.length - 1) },
      };
    },
  };
}

/** The candidate that splits the first lines into the most, and equally many, fields. */
function guessDelimiter(text: string): string {
  // The first 64 KB of a line tell the delimiter as well as its whole 14 MB would.
  const lines = text
    .split('\n', 6)
    .filter((line) => line.trim() !== '')
    .map((line) => line.slice(0, 65_536));
  let best = ',';
  let bestScore = 0;
  for (const candidate of [',', ';', '\t', '|']) {
    const counts = lines.map((line) => parseCsv(line, candidate)[0]?.length ?? 1);
    const consistent = counts.every((count) => count === counts[0]);
    const score = (counts[0] ?? 1) > 1 ? (counts[0] ?? 1) * (consistent ? 2 : 1) : 0;
    if (score > bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

/** RFC 4180: quoted fields may hold delimiters, quotes (doubled) and line breaks. */
function parseCsv(text: string, delimiter: string, maxColumns = Infinity, maxCells = Infinity): string[][] {
  const rows: string[][] = [];
  let cells = 0;
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    if (quoted) {
      if (char !== '"') field += char;
      else if (text[index + 1] === '"') {
        field += '"';
        index++;
      } else quoted = false;
    } else if (char === '"' && field.trim() === '') {
      quoted = true;
      field = '';
    } else if (char === delimiter) {
      row.push(field);
      field = '';
      if (row.length >= maxColumns) throw tooManyColumns(row.length + 1, maxColumns);
      if (++cells > maxCells) throw tooManyCells(maxCells);
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[index + 1] === '\n') index++;
      row.push(field);
      if (++cells > maxCells) throw tooManyCells(maxCells);
      rows.push(row);
      row = [];
      field = '';
    } else field += char;
  }
  if (field !== '' || row.length > 0) {
    if (cells + 1 > maxCells) throw tooManyCells(maxCells);
    rows.push([...row, field]);
  }
  return rows;
}
