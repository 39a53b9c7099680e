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
function* locElements(text: string): Generator<{ prefix: string | undefined; content: string }> {
  // ASCII only: toLowerCase() may change the length (U+0130), and the offsets must stay the text's.
  const lower = text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
  let at = 0;
  for (;;) {
    const open = lower.indexOf('loc', at);
    if (open < 0) return;
    at = open + 3;
    // `<loc` or `<prefix:loc`, and a tag name that ends there.
    let nameStart = open;
    let prefix: string | undefined;
    if (lower[open - 1] === ':') {
      nameStart = open - 1;
      while (nameStart > 0 && NAME_CHAR.test(lower[nameStart - 1]!)) nameStart--;
      prefix = text.slice(nameStart, open - 1);
      if (prefix === '') continue;
    }
    if (lower[nameStart - 1] !== '<' || NAME_CHAR.test(lower[open + 3] ?? '')) continue;
    const tagEnd = lower.indexOf('>', open + 3);
    if (tagEnd < 0) return;
    const close = closingLoc(lower, tagEnd + 1);
    if (!close) return;
    yield { prefix, content: text.slice(tagEnd + 1, close.start) };
    at = close.end;
  }
}

/** The first `</loc>` or `</prefix:loc >` at or after `from`. */
function closingLoc(lower: string, from: number): { start: number; end: number } | undefined {
  for (let start = lower.indexOf('</', from); start >= 0; start = lower.indexOf('</', start + 2)) {
    let name = start + 2;
    while (name < lower.length && NAME_CHAR.test(lower[name]!)) name++;
    const tag = lower.slice(start + 2, name);
    let next = name;
    if (lower[name] === ':') {
      next = name + 1;
      if (!lower.startsWith('loc', next)) continue;
      next += 3;
      if (NAME_CHAR.test(lower[next] ?? '')) continue;
    } else if (tag !== 'loc') continue;
    while (next < lower.length && /\s/.test(lower[next]!)) next++;
    if (lower[next] === '>') return { start, end: next + 1 };
  }
  return undefined;
}

/** Parses a sitemap file (already un-gzipped); `base` resolves relative locations. */
export function parseSitemap(text: string, base: string): ParsedSitemap {
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  const kind = /<(?:[\w-]+:)?sitemapindex[\s>]/i.test(trimmed) ? 'index' : 'urlset';
  const raw: string[] = [];
  if (trimmed.startsWith('<')) {
    for (const { prefix, content } of locElements(trimmed)) {
      if (prefix && EXTENSION_PREFIXES.has(prefix.toLowerCase())) continue;
      raw.push(decodeEntities(content.replace(/^\s*<!\[CDATA\[([\s\S]*?)\]\]>\s*$/, '$1')).trim());
    }
  } else {
    raw.push(
      ...trimmed
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => /^https?:\/\//i.test(line)),
    );
  }
  const urls: string[] = [];
  for (const value of raw) {
    try {
      const url = new URL(value, base);
      if (url.protocol === 'http:' || url.protocol === 'https:') urls.push(url.href);
    } catch {
      // an unusable <loc> is skipped
    }
  }
  return { kind, urls };
}

/** Page URLs listed by the sitemaps at `roots`, following indexes depth-first. */
export async function* sitemapPageUrls(roots: readonly string[], options: SitemapReadOptions): AsyncGenerator<string> {
  const maxDepth = options.maxDepth ?? 3;
  let filesLeft = options.maxFiles ?? 50;
  const visited = new Set<string>();

  async function* read(url: string, depth: number): AsyncGenerator<string> {
    if (visited.has(url) || filesLeft <= 0) return;
    visited.add(url);
    filesLeft--;
    let parsed: ParsedSitemap;
    try {
      const fetched = await options.fetch(url);
      const bytes = await inflate(fetched.body, url, options.maxBytes);
      parsed = parseSitemap(bytes.toString('utf8'), fetched.finalUrl);
    } catch (error) {
      options.signal?.throwIfAborted();
      if (depth === 0 && options.strictRoots) throw error;
      return; // a missing or broken nested sitemap costs its pages, not the crawl
    }
    if (parsed.kind === 'urlset') {
      yield* parsed.urls;
      return;
    }
    if (depth >= maxDepth) return;
    for (const child of parsed.urls) yield* read(child, depth + 1);
  }

  for (const root of roots) yield* read(root, 0);
}
