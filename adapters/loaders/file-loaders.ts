import type { Loader } from '../../src/ports/loader.js';
import { csvLoader } from './csv-loader.js';
import { htmlLoader } from './html-loader.js';
import { jsonLoader } from './json-loader.js';
import { officeLoader } from './office-loader.js';
import { plainTextLoader } from './text-loaders.js';

export interface FileLoaderOptions {
  /** Files larger than this are refused by `loadFile` before parsing (default 50 MB). */
  maxBytes?: number;
  /** Cap on what a DOCX/PPTX/XLSX may inflate to, declared and actual (default 200 MB). */
  maxUncompressedBytes?: number;
  /** PDFs and presentations with more pages or slides are refused (default: no limit). */
  maxPages?: number;
  /** CSV data rows per section; every section repeats the header row (default 30). */
  csvRowsPerSection?: number;
}

export const DEFAULT_MAX_BYTES = 50 * 1024 * 1024;
export const DEFAULT_MAX_UNCOMPRESSED_BYTES = 200 * 1024 * 1024;

/** Marks the loader list with its byte limit so `loadFile` can enforce it without a second option. */
export const MAX_BYTES = Symbol.for('ragdesk.loaders.maxBytes');

export type FileLoaderList = Loader[] & { [MAX_BYTES]?: number };

/**
 * Loaders for the mime types of SPEC.md (CSV, plain text, Markdown, PDF, JSON, PPTX, DOCX, XLSX)
 * plus HTML. Pick one with `loadFile`, which sniffs the type and enforces the size limit.
 */
export function fileLoaders(options: FileLoaderOptions = {}): FileLoaderList {
  const maxBytes = positive(options.maxBytes, DEFAULT_MAX_BYTES, 'maxBytes');
  const maxUncompressedBytes = positive(options.maxUncompressedBytes, DEFAULT_MAX_UNCOMPRESSED_BYTES, 'maxUncompressedBytes');
  const maxPages = options.maxPages === undefined ? undefined : positive(options.maxPages, 0, 'maxPages');
  const loaders: FileLoaderList = [
    plainTextLoader(),
    csvLoader({ rowsPerSection: options.csvRowsPerSection ?? 30 }),
    jsonLoader(),
    htmlLoader(),
    officeLoader({ maxUncompressedBytes, ...(maxPages === undefined ? {} : { maxPages }) }),
  ];
  Object.defineProperty(loaders, MAX_BYTES, { value: maxBytes, enumerable: false });
  return loaders;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`${name} must be a positive number`);
  return value;
}
