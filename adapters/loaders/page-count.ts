import { promisify } from 'node:util';
import { inflate as inflateCallback } from 'node:zlib';
import { readZipDirectory } from './zip-directory.js';

const inflate = promisify(inflateCallback);

/** Bytes of compressed object streams inflated while counting; past it the count stops growing. */
const OBJECT_STREAM_BUDGET = 64 * 1024 * 1024;

/** A page object's type entry; `/Type /Pages` (the page tree's inner nodes) does not match. */
const PAGE_OBJECT = /\/Type\s*\/Page(?![A-Za-z0-9#])/g;
const OBJECT_STREAM = /\/Type\s*\/ObjStm(?![A-Za-z0-9#])/g;

/**
 * The pages a PDF declares, counted without parsing it, so `maxPages` refuses a 100,000-page file
 * in milliseconds instead of after pdf.js has read every page (~100 pages/s on 2 cores): the page
 * objects in the file body plus those inside FlateDecode object streams (PDF 1.5+ keeps most
 * objects there). An estimate for a gate: old revisions left by incremental updates count too,
 * and page objects behind other filters are missed, so the count the parser reports is checked
 * again after parsing.
 */
export async function countPdfPages(bytes: Uint8Array): Promise<number> {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let pages = countMatches(text, PAGE_OBJECT);
  let budget = OBJECT_STREAM_BUDGET;
  OBJECT_STREAM.lastIndex = 0;
  for (let match = OBJECT_STREAM.exec(text); match !== null && budget > 0; match = OBJECT_STREAM.exec(text)) {
    const data = streamData(text, bytes, match.index);
    if (data === undefined) continue;
    try {
      // Z_SYNC_FLUSH: a stream cut short still yields what it holds instead of an error.
      const inflated = await inflate(data, { maxOutputLength: budget, finishFlush: 2 });
      budget -= inflated.length;
      pages += countMatches(inflated.toString('latin1'), PAGE_OBJECT);
    } catch {
      // corrupt or over budget: the parser decides
    }
  }
  return pages;
}

/** Slides of a PPTX, from the names in its ZIP directory (nothing is inflated). */
export function countPptxSlides(bytes: Uint8Array): number {
  const entries = readZipDirectory(bytes) ?? [];
  return entries.filter((entry) => /^ppt\/slides\/slide\d+\.xml$/i.test(entry.name)).length;
}

function countMatches(text: string, pattern: RegExp): number {
  let count = 0;
  pattern.lastIndex = 0;
  while (pattern.exec(text) !== null) count++;
  return count;
}

/**
 * True when a `/Filter [ ... ]` array names two filters or more. A scan: the regular expression
 * `/Filter\s*\[[^\]]*\/\w+[^\]]*\/\w+` split one long name between `\w+` and `[^\]]*` in every
 * way before failing, quadratic in a dictionary the file's author writes.
 */
function hasFilterChain(dictionary: string): boolean {
  let at = dictionary.indexOf('/Filter');
  while (at >= 0) {
    let open = at + 7;
    while (open < dictionary.length && /\s/.test(dictionary[open]!)) open++;
    if (dictionary[open] !== '[') {
      at = dictionary.indexOf('/Filter', open);
      continue;
    }
    const close = dictionary.indexOf(']', open);
    const names = dictionary.slice(open + 1, close < 0 ? dictionary.length : close).match(/\/\w/g);
    if (names && names.length >= 2) return true;
    // A `/Filter [` inside this array sees a part of it: no more names. Go on after it.
    if (close < 0) return false;
    at = dictionary.indexOf('/Filter', close + 1);
  }
  return false;
}

/** The raw bytes of the FlateDecode stream whose dictionary holds `position`, if it has one. */
function streamData(text: string, bytes: Uint8Array, position: number): Uint8Array | undefined {
  const keyword = text.indexOf('stream', position);
  if (keyword === -1) return undefined;
  const dictionary = text.slice(Math.max(0, text.lastIndexOf('obj', position)), keyword);
  if (!/\/FlateDecode/.test(dictionary) || hasFilterChain(dictionary)) return undefined;
  let start = keyword + 'stream'.length;
  if (text.charCodeAt(start) === 13) start++;
  if (text.charCodeAt(start) === 10) start++;
  const end = text.indexOf('endstream', start);
  return bytes.subarray(start, end === -1 ? bytes.length : end);
}
