import type { Loader } from '../../src/ports/loader.js';
import { csvLoader, DEFAULT_MAX_CSV_CELLS } from './csv-loader.js';
import { htmlLoader } from './html-loader.js';
import { jsonLoader } from './json-loader.js';
import { officeLoader } from './office-loader.js';
import { DEFAULT_MAX_TABLE_COLUMNS } from './table-text.js';
import { plainTextLoader } from './text-loaders.js';
import { numberOption } from '../kit/option-checks.js';

export interface FileLoaderOptions {
  /** Files larger than this are refused by `loadFile` before parsing (default 50 MB). */
  maxBytes?: number;
  /** Cap on what a DOCX/PPTX/XLSX may inflate to, declared and actual (default 200 MB). */
  maxUncompressedBytes?: number;
  /**
   * PDFs and presentations with more pages or slides are refused, counted from the raw file before
   * parsing and again after (default 2,000: pdf.js reads 60-100 pages/s on 2 cores, so this bounds
   * one PDF to well under a minute; a 3 MB file can hold 10,000 pages). `Infinity` for no limit.
   */
  maxPages?: number;
  /** CSV data rows per section; every section repeats the header row (default 30). */
  csvRowsPerSection?: number;
  /**
   * CSV files and spreadsheet sheets with more columns are refused with `payload_too_large`, reason
   * `too_many_columns` (default 1,000). Checked while the CSV is read, so a million-column header
   * costs no more than its first thousand cells.
   */
  maxTableColumns?: number;
  /**
   * CSV files with more cells (fields of all rows together) are refused with `payload_too_large`,
   * reason `too_many_cells` (default 1,000,000), while the file is read: a 45 MB CSV of 4.7 M cells
   * needed 750 MB of heap, past the parser process's memory limit.
   */
  maxCsvCells?: number;
}

export const DEFAULT_MAX_BYTES = 50 * 1024 * 1024;
export const DEFAULT_MAX_UNCOMPRESSED_BYTES = 200 * 1024 * 1024;
export const DEFAULT_MAX_PAGES = 2_000;

/** Marks the loader list with its byte limit so `loadFile` can enforce it without a second option. */
export const MAX_BYTES = Symbol.for('ragdesk.loaders.maxBytes');

export type FileLoaderList = Loader[] & { [MAX_BYTES]?: number };

/**
 * Loaders for the mime types Datasource Create accepts (CSV, plain text, Markdown, PDF, JSON, PPTX, DOCX, XLSX)
 * plus HTML. Pick one with `loadFile`, which sniffs the type and enforces the size limit.
 */
export function fileLoaders(options: FileLoaderOptions = {}): FileLoaderList {
  const maxBytes = positive(options.maxBytes, DEFAULT_MAX_BYTES, 'maxBytes');
  const maxUncompressedBytes = positive(options.maxUncompressedBytes, DEFAULT_MAX_UNCOMPRESSED_BYTES, 'maxUncompressedBytes');
  const maxTableColumns = positive(options.maxTableColumns, DEFAULT_MAX_TABLE_COLUMNS, 'maxTableColumns');
  const maxCsvCells = positive(options.maxCsvCells, DEFAULT_MAX_CSV_CELLS, 'maxCsvCells');
  const maxPages = options.maxPages === Infinity ? undefined : positive(options.maxPages, DEFAULT_MAX_PAGES, 'maxPages');
  const loaders: FileLoaderList = [
    plainTextLoader(),
    csvLoader({ rowsPerSection: options.csvRowsPerSection ?? 30, maxColumns: maxTableColumns, maxCells: maxCsvCells }),
    jsonLoader(),
    htmlLoader(),
    officeLoader({ maxUncompressedBytes, maxTableColumns, ...(maxPages === undefined ? {} : { maxPages }) }),
  ];
  Object.defineProperty(loaders, MAX_BYTES, { value: maxBytes, enumerable: false });
  return loaders;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  return numberOption('fileLoaders', name, value, fallback, { min: 0, exclusive: true });
}
