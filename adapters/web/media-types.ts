/** Which content types each kind of resource accepts, and how bytes become text. */
import { decodeWindows1252 } from '../kit/windows-1252.js';

export type ResourceKind = 'page' | 'sitemap' | 'robots' | 'file';

export interface MediaType {
  /** Lower-case essence (`text/html`), empty when the server sent none. */
  mime: string;
  charset?: string;
}

export function parseMediaType(header: string | undefined): MediaType {
  if (!header) return { mime: '' };
  const [essence = '', ...parameters] = header.split(';');
  const charset = parameters
    .map((parameter) => /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(parameter)?.[1])
    .find((value) => value !== undefined);
  return { mime: essence.trim().toLowerCase(), ...(charset ? { charset: charset.toLowerCase() } : {}) };
}

const PAGE_TYPES = new Set(['text/html', 'application/xhtml+xml', 'text/plain']);
const SITEMAP_TYPES = new Set([
  'application/xml',
  'text/xml',
  'text/plain',
  'application/gzip',
  'application/x-gzip',
  'application/octet-stream',
]);

/** True when a body of this type is worth downloading for `kind`; an absent type is sniffed later. */
export function isAcceptedType(kind: ResourceKind, mime: string): boolean {
  if (mime === '' || kind === 'robots' || kind === 'file') return true;
  if (kind === 'page') return PAGE_TYPES.has(mime);
  return SITEMAP_TYPES.has(mime) || mime.endsWith('+xml');
}

export function isHtmlType(mime: string): boolean {
  return mime === 'text/html' || mime === 'application/xhtml+xml';
}

/** For a page without a content type: HTML if it looks like markup, text if it looks like text. */
export function sniffPageType(bytes: Uint8Array): string | undefined {
  const head = bytes.subarray(0, 1024);
  if (head.includes(0)) return undefined;
  const text = Buffer.from(head).toString('latin1').trimStart().toLowerCase();
  return /^(<!doctype html|<html|<head|<body|<!--|<[a-z])/.test(text) ? 'text/html' : 'text/plain';
}

function supportedLabel(label: string | undefined): string | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return undefined;
  }
}

/** Decodes a body: byte-order mark, then the header charset, then `<meta charset>`, then UTF-8. */
export function decodeText(bytes: Uint8Array, charset: string | undefined, html: boolean): string {
  let label: string | undefined;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) label = 'utf-8';
  else if (bytes[0] === 0xff && bytes[1] === 0xfe) label = 'utf-16le';
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) label = 'utf-16be';
  label ??= supportedLabel(charset);
  if (!label && html) {
    const head = Buffer.from(bytes.subarray(0, 2048)).toString('latin1');
    label = supportedLabel(/<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(head)?.[1]);
  }
  // `iso-8859-1` and `latin1` are Windows-1252 too (WHATWG), which Node's decoder gets wrong.
  if (label === 'windows-1252') return decodeWindows1252(bytes);
  return new TextDecoder(label ?? 'utf-8').decode(bytes);
}
