/**
 * Sitemaps (sitemaps.org): `<urlset>` page lists, `<sitemapindex>` lists of sitemaps read
 * recursively (bounded), gzip files (detected by magic bytes, whatever the URL or content type
 * says) and plain-text sitemaps of one URL a line. Page URLs are produced lazily, in file order.
 */
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { RagdeskError } from '../../src/errors.js';
import { tooLargeError } from './http-errors.js';

const gunzipAsync = promisify(gunzip);

export interface ParsedSitemap {
  kind: 'index' | 'urlset';
  urls: string[];
}

/** A page of a `<urlset>` with its `<lastmod>`, as a time after which the page has not changed. */
export interface SitemapPage {
  url: string;
  /**
   * The end of the period `<lastmod>` names, in ms since the epoch: a full time is itself, a bare
   * date its last millisecond (the page may have changed any time that day), and so on. Undefined
   * when the entry has none, or one that is not a W3C date.
   */
  lastmod?: number;
}

export interface SitemapReadOptions {
  /** Fetches one sitemap file's bytes (the loader's fetcher, kind `sitemap`). */
  fetch: (url: string) => Promise<{ finalUrl: string; body: Buffer }>;
  maxBytes: number;
  /** Nesting of sitemap indexes followed below the root files. Default 3. */
  maxDepth?: number;
  /** Sitemap files fetched in all. Default 50. */
  maxFiles?: number;
  /** When true, a root sitemap that cannot be read throws; nested failures are always skipped. */
  strictRoots?: boolean;
  signal?: AbortSignal;
}

const EXTENSION_PREFIXES = new Set(['image', 'video', 'news', 'xhtml']);
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (match, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
    }
    return ENTITIES[name.toLowerCase()] ?? match;
  });
}

async function inflate(body: Buffer, url: string, maxBytes: number): Promise<Buffer> {
  if (body[0] !== 0x1f || body[1] !== 0x8b) return body;
  try {
    return await gunzipAsync(body, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
      throw tooLargeError(url, maxBytes);
    }
    throw new RagdeskError('upstream_failed', `${url} is not a readable gzip file`, {
      cause: error,
      details: { url, reason: 'content_encoding' },
    });
  }
}

const NAME_CHAR = /[\w-]/;

/**
 * `<loc>` and `<prefix:loc>` elements in document order, with their raw content. A scan, not a
 * regular expression: `<loc\b[^>]*>([\s\S]*?)</loc\s*>` restarted its search at every `<loc` of
 * a file that never closes one, quadratic in the file (20 KB of `<loc ` took 0.4 s; a sitemap may
 * be 10 MB). Here every search goes forward from the last, and a missing `>` or closing tag ends
 * the scan, since no later element could be complete either.
 */
function* elements(text: string, lower: string, name: string): Generator<{ prefix: string | undefined; content: string; start: number }> {
  let at = 0;
  for (;;) {
    const open = lower.indexOf(name, at);
    if (open < 0) return;
    at = open + name.length;
    // `<loc` or `<prefix:loc`, and a tag name that ends there.
    let nameStart = open;
    let prefix: string | undefined;
    if (lower[open - 1] === ':') {
      nameStart = open - 1;
      while (nameStart > 0 && NAME_CHAR.test(lower[nameStart - 1]!)) nameStart--;
      prefix = text.slice(nameStart, open - 1);
      if (prefix === '') continue;
    }
    if (lower[nameStart - 1] !== '<' || NAME_CHAR.test(lower[open + name.length] ?? '')) continue;
    const tagEnd = lower.indexOf('>', open + name.length);
    if (tagEnd < 0) return;
    const close = closingTag(lower, tagEnd + 1, name);
    if (!close) return;
    yield { prefix, content: text.slice(tagEnd + 1, close.start), start: nameStart - 1 };
    at = close.end;
  }
}

/** The first `</name>` or `</prefix:name >` at or after `from`. */
function closingTag(lower: string, from: number, wanted: string): { start: number; end: number } | undefined {
  for (let start = lower.indexOf('</', from); start >= 0; start = lower.indexOf('</', start + 2)) {
    let name = start + 2;
    while (name < lower.length && NAME_CHAR.test(lower[name]!)) name++;
    const tag = lower.slice(start + 2, name);
    let next = name;
    if (lower[name] === ':') {
      next = name + 1;
      if (!lower.startsWith(wanted, next)) continue;
      next += wanted.length;
      if (NAME_CHAR.test(lower[next] ?? '')) continue;
    } else if (tag !== wanted) continue;
    while (next < lower.length && /\s/.test(lower[next]!)) next++;
    if (lower[next] === '>') return { start, end: next + 1 };
  }
  return undefined;
}

/** Parses a sitemap file (already un-gzipped); `base` resolves relative locations. */
export function parseSitemap(text: string, base: string): ParsedSitemap {
  const { kind, pages } = parseSitemapPages(text, base);
  return { kind, urls: pages.map((page) => page.url) };
}

const elementText = (content: string) => decodeEntities(content.replace(/^\s*<!\[CDATA\[([\s\S]*?)\]\]>\s*$/, '$1')).trim();

/**
 * `parseSitemap` with each page's `<lastmod>`: the one inside the same `<url>` element as its
 * `<loc>` (before or after it); in a file without `<url>` elements, the one between a `<loc>` and
 * the next. Three forward scans and one merge: linear in the file.
 */
export function parseSitemapPages(text: string, base: string): { kind: ParsedSitemap['kind']; pages: SitemapPage[] } {
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  const kind = /<(?:[\w-]+:)?sitemapindex[\s>]/i.test(trimmed) ? 'index' : 'urlset';
  const raw: { loc: string; lastmod?: string }[] = [];
  if (trimmed.startsWith('<')) {
    // ASCII only: toLowerCase() may change the length (U+0130), and the offsets must stay the text's.
    const lower = trimmed.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
    const locs = [...elements(trimmed, lower, 'loc')].filter(({ prefix }) => !(prefix && EXTENSION_PREFIXES.has(prefix.toLowerCase())));
    const lastmods = kind === 'urlset' ? [...elements(trimmed, lower, 'lastmod')].filter(({ prefix }) => !prefix) : [];
    const blocks = lastmods.length > 0 ? urlElementStarts(lower) : [];
    // Which <url> element (or gap between locs) a position falls in: the last start at or before it.
    const blockOf = (position: number, starts: readonly number[]): number => {
      let low = 0;
      let high = starts.length - 1;
      let found = -1;
      while (low <= high) {
        const middle = (low + high) >> 1;
        if ((starts[middle] as number) <= position) {
          found = middle;
          low = middle + 1;
        } else high = middle - 1;
      }
      return found;
    };
    const starts = blocks.length > 0 ? blocks : locs.map((loc) => loc.start);
    const lastmodOfBlock = new Map<number, string>();
    for (const lastmod of lastmods) {
      const block = blockOf(lastmod.start, starts);
      if (block >= 0 && !lastmodOfBlock.has(block)) lastmodOfBlock.set(block, elementText(lastmod.content));
    }
    const taken = new Set<number>();
    for (const loc of locs) {
      const block = blockOf(loc.start, starts);
      // One <lastmod> per <url>: a second <loc> in the same element gets none.
      const lastmod = block >= 0 && !taken.has(block) ? lastmodOfBlock.get(block) : undefined;
      taken.add(block);
      raw.push({ loc: elementText(loc.content), ...(lastmod === undefined ? {} : { lastmod }) });
    }
  } else {
    for (const line of trimmed.split(/\r?\n/)) {
      const value = line.trim();
      if (/^https?:\/\//i.test(value)) raw.push({ loc: value });
    }
  }
  const pages: SitemapPage[] = [];
  for (const { loc, lastmod } of raw) {
    try {
      const url = new URL(loc, base);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
      const until = lastmod === undefined ? undefined : lastmodEnd(lastmod);
      pages.push({ url: url.href, ...(until === undefined ? {} : { lastmod: until }) });
    } catch {
      // an unusable <loc> is skipped
    }
  }
  return { kind, pages };
}

/** Offsets of `<url>` / `<url ...>` start tags (not `<urlset>`), in order. */
function urlElementStarts(lower: string): number[] {
  const starts: number[] = [];
  for (let at = lower.indexOf('<url'); at >= 0; at = lower.indexOf('<url', at + 4)) {
    const after = lower[at + 4];
    if (after === '>' || after === ' ' || after === '\t' || after === '\n' || after === '\r' || after === '/') starts.push(at);
  }
  return starts;
}

const W3C_DATE = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?)?)?$/;

/**
 * The last millisecond of the period a W3C datetime (sitemaps.org's `<lastmod>`) names: `2026`,
 * `2026-11`, `2026-11-28` and `2026-11-28T10:05+01:00` name a year, a month, a day and a minute.
 * Undefined for anything else.
 */
export function lastmodEnd(value: string): number | undefined {
  const match = W3C_DATE.exec(value);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction, zone] = match;
  if (hour !== undefined) {
    const at = Date.parse(`${year}-${month}-${day}T${hour}:${minute}:${second ?? '00'}${fraction ?? ''}${zone === 'Z' ? 'Z' : zone}`);
    if (Number.isNaN(at)) return undefined;
    // Without seconds the time names a whole minute.
    return second === undefined ? at + 59_999 : at;
  }
  const y = Number(year);
  const m = month === undefined ? undefined : Number(month) - 1;
  const d = day === undefined ? undefined : Number(day);
  if (m !== undefined && (m < 0 || m > 11)) return undefined;
  if (d !== undefined && (d < 1 || d > new Date(Date.UTC(y, (m as number) + 1, 0)).getUTCDate())) return undefined;
  // The start of the next period, less one millisecond (dates without a zone are taken as UTC).
  const next = d !== undefined ? Date.UTC(y, m as number, d + 1) : m !== undefined ? Date.UTC(y, m + 1, 1) : Date.UTC(y + 1, 0, 1);
  return next - 1;
}

/** Page URLs listed by the sitemaps at `roots`, following indexes depth-first. */
export async function* sitemapPageUrls(roots: readonly string[], options: SitemapReadOptions): AsyncGenerator<string> {
  for await (const page of sitemapPages(roots, options)) yield page.url;
}

/** `sitemapPageUrls` with each page's `<lastmod>`. */
export async function* sitemapPages(roots: readonly string[], options: SitemapReadOptions): AsyncGenerator<SitemapPage> {
  const maxDepth = options.maxDepth ?? 3;
  let filesLeft = options.maxFiles ?? 50;
  const visited = new Set<string>();

  async function* read(url: string, depth: number): AsyncGenerator<SitemapPage> {
    if (visited.has(url) || filesLeft <= 0) return;
    visited.add(url);
    filesLeft--;
    let parsed: ReturnType<typeof parseSitemapPages>;
    try {
      const fetched = await options.fetch(url);
      const bytes = await inflate(fetched.body, url, options.maxBytes);
      parsed = parseSitemapPages(bytes.toString('utf8'), fetched.finalUrl);
    } catch (error) {
      options.signal?.throwIfAborted();
      if (depth === 0 && options.strictRoots) throw error;
      return; // a missing or broken nested sitemap costs its pages, not the crawl
    }
    if (parsed.kind === 'urlset') {
      yield* parsed.pages;
      return;
    }
    if (depth >= maxDepth) return;
    for (const child of parsed.pages) yield* read(child.url, depth + 1);
  }

  for (const root of roots) yield* read(root, 0);
}
