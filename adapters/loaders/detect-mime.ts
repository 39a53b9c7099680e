import { EXTENSION_MIME, KNOWN_UNSUPPORTED, MIME, extensionOf, normaliseMimeType } from './mime-types.js';
import { decodeText } from './text-decode.js';
import { isZip, readZipDirectory } from './zip-directory.js';

export interface DetectOptions {
  /** The type the uploader declared (Content-Type of the part), if any. */
  declared?: string;
  fileName?: string;
}

const OLE2 = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const OOXML_TYPES: readonly string[] = [MIME.docx, MIME.pptx, MIME.xlsx];
const TEXT_TYPES: readonly string[] = [MIME.csv, MIME.markdown, MIME.html, MIME.json, MIME.text, KNOWN_UNSUPPORTED.ipynb];

/**
 * The mime type of a file, decided from its bytes first: PDF and ZIP-based formats by their
 * signatures and parts, text by its encoding and content. The declared type and the file extension
 * only choose among text types the bytes allow (CSV, Markdown, HTML), so a wrong or generic declared
 * type cannot route a file to the wrong parser. Unrecognised binary data is
 * `application/octet-stream`.
 */
export function detectMimeType(bytes: Uint8Array, options: DetectOptions = {}): string {
  const declared = normaliseMimeType(options.declared);
  const byExtension = EXTENSION_MIME[extensionOf(options.fileName) ?? ''];
  const binary = detectBinary(bytes, declared, byExtension);
  if (binary !== undefined) return binary;
  // This runs on the calling thread (uploads are checked before they are stored): a large file is
  // judged by its first MiB, not decoded and JSON-parsed whole (a 16 MB JSON file held the event
  // loop for half a second here, twice per upload). The loader decodes it all, off the main thread.
  const sampled = bytes.length > SNIFF_BYTES;
  const text = decodeText(sampled ? utf8Prefix(bytes, SNIFF_BYTES) : bytes);
  if (text === undefined) return KNOWN_UNSUPPORTED.octetStream;
  // Windows browsers declare CSV uploads as Excel files.
  const textHint = declared === KNOWN_UNSUPPORTED.xls ? MIME.csv : declared;
  return detectText(text, [textHint, byExtension], sampled ? lastCharacter(bytes) : undefined);
}

/** Files larger than this are typed from their first this-many bytes (and their last character). */
const SNIFF_BYTES = 1 << 20;

/** The first `length` bytes, shortened so no UTF-8 sequence is cut. */
function utf8Prefix(bytes: Uint8Array, length: number): Uint8Array {
  // Back over up to three continuation bytes to the lead byte, and drop that last sequence whole
  // (complete or not: one character fewer changes no decision).
  let lead = length - 1;
  while (lead > length - 4 && ((bytes[lead] as number) & 0xc0) === 0x80) lead--;
  return bytes.subarray(0, (bytes[lead] as number) >= 0xc0 ? lead : length);
}

/** The last non-space character of the file (ASCII), for telling a sampled JSON document. */
function lastCharacter(bytes: Uint8Array): string {
  let index = bytes.length - 1;
  while (index >= 0 && [0x20, 0x09, 0x0a, 0x0d].includes(bytes[index] as number)) index--;
  return index >= 0 ? String.fromCharCode(bytes[index] as number) : '';
}

function detectBinary(bytes: Uint8Array, declared?: string, byExtension?: string): string | undefined {
  // Readers accept a PDF header anywhere in the first KB; text that merely mentions one stays text.
  const pdfAt = new TextDecoder('latin1').decode(bytes.subarray(0, 1024)).indexOf('%PDF-');
  if (pdfAt === 0 || (pdfAt > 0 && decodeText(bytes.subarray(0, 4096)) === undefined)) return MIME.pdf;
  if (OLE2.every((byte, index) => bytes[index] === byte)) {
    const hinted = [declared, byExtension].find((type) =>
      [KNOWN_UNSUPPORTED.xls, KNOWN_UNSUPPORTED.doc, KNOWN_UNSUPPORTED.ppt].includes(type as never),
    );
    return hinted ?? KNOWN_UNSUPPORTED.ole;
  }
  if (!isZip(bytes)) return undefined;
  const stored = storedMimetypeEntry(bytes);
  if (stored !== undefined) return stored;
  const names = readZipDirectory(bytes)?.map((entry) => entry.name);
  if (names === undefined) {
    // A damaged archive: let the parser the uploader asked for report it as unreadable.
    return [declared, byExtension].find((type) => OOXML_TYPES.includes(type ?? '')) ?? KNOWN_UNSUPPORTED.zip;
  }
  if (!names.includes('[Content_Types].xml')) return KNOWN_UNSUPPORTED.zip;
  if (names.some((name) => name.startsWith('word/'))) return MIME.docx;
  if (names.some((name) => name.startsWith('ppt/'))) return MIME.pptx;
  if (names.some((name) => name.startsWith('xl/'))) return MIME.xlsx;
  return KNOWN_UNSUPPORTED.zip;
}

/** EPUB and OpenDocument store their type, uncompressed, as the first entry `mimetype`. */
function storedMimetypeEntry(bytes: Uint8Array): string | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 38 || view.getUint16(8, true) !== 0) return undefined;
  const size = view.getUint32(18, true);
  const nameLength = view.getUint16(26, true);
  const extraLength = view.getUint16(28, true);
  const name = new TextDecoder().decode(bytes.subarray(30, 30 + nameLength));
  if (name !== 'mimetype' || size > 100) return undefined;
  const start = 30 + nameLength + extraLength;
  const value = new TextDecoder().decode(bytes.subarray(start, start + size)).trim();
  return value || undefined;
}

/**
 * `lastChar` is set when `text` is only the start of a large file: JSON is then recognised by its
 * opening and closing brackets instead of a parse (a file that only looks like JSON fails in the
 * JSON loader with `could not parse`).
 */
function detectText(text: string, hints: ReadonlyArray<string | undefined>, lastChar?: string): string {
  const isJson = () => (lastChar === undefined ? parsesAsJson(text) : closesLikeJson(text, lastChar));
  const candidates = hints.filter((hint): hint is string => hint !== undefined && TEXT_TYPES.includes(hint));
  for (const candidate of candidates) {
    if (candidate === MIME.text) continue;
    if (candidate === MIME.json && !isJson()) continue;
    return candidate;
  }
  if (looksLikeJson(text) && isJson()) return MIME.json;
  if (looksLikeHtml(text)) return MIME.html;
  return MIME.text;
}

function looksLikeJson(text: string): boolean {
  const first = text.trimStart()[0];
  return first === '{' || first === '[';
}

function closesLikeJson(text: string, lastChar: string): boolean {
  const first = text.trimStart()[0];
  return (first === '{' && lastChar === '}') || (first === '[' && lastChar === ']');
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * `text` after its leading comments and the whitespace between them. A scan: the regular
 * expression `^(<!--[\s\S]*?-->\s*)*` could split `<!----><!---->…` into comments in exponentially
 * many ways before failing (20 of them and a stray character took over 30 s).
 */
function afterComments(text: string): string {
  let at = 0;
  while (text.startsWith('<!--', at)) {
    const end = text.indexOf('-->', at + 4);
    if (end < 0) return text.slice(at);
    at = end + 3;
    while (at < text.length && /\s/.test(text[at]!)) at++;
  }
  return text.slice(at);
}

function looksLikeHtml(text: string): boolean {
  const head = text.slice(0, 2048).trimStart().toLowerCase();
  if (/^(?:<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/.test(afterComments(head))) return true;
  return /<html[\s>]/.test(head) && /<\/(head|body|p|div)>/.test(text.slice(0, 65536).toLowerCase());
}
