import type { LoadedDocument } from './loader.js';
import type { SpecificationVersion } from './specification.js';

/** A fetched and extracted web page. */
export interface WebPage {
  /** The URL asked for. */
  url: string;
  /** The URL after redirects; the page's identity for re-syncs. */
  finalUrl: string;
  /** `<title>` (or first heading) of the page, when it has one. */
  title?: string;
  /** Main text in reading order (navigation, scripts and boilerplate removed). */
  document: LoadedDocument;
  /** Same-origin links found on the page (absolute, fragment-free), for crawling. */
  links: string[];
  /** What the server sent to ask for the page conditionally next time, and the body's hash. */
  validators?: PageValidators;
}

/**
 * What a previous load kept of a page: sent back as `If-None-Match` / `If-Modified-Since`, and a
 * hash of the body it had (a body with the same hash is not parsed again).
 */
export interface PageValidators {
  etag?: string | null;
  lastModified?: string | null;
  /** SHA-256 (hex) of the response body as received. */
  bodyHash?: string | null;
  /**
   * When the page was last requested (ISO-8601; the core keeps the start of that crawl). A recrawl
   * from a sitemap does not request a page whose `<lastmod>` is not after it: the page is yielded
   * as `WebPageUnchanged` with these validators.
   */
  fetchedAt?: string | null;
}

/**
 * A page that has not changed since the validators it was asked with: the server answered 304,
 * or sent the same body again, or (`requested: false`) its sitemap `<lastmod>` is not after
 * `validators.fetchedAt`. Nothing was parsed.
 */
export interface WebPageUnchanged {
  url: string;
  finalUrl: string;
  unchanged: true;
  /** The validators to keep (a 304 may carry fresh ones). */
  validators: PageValidators;
  /** False when the page was not requested at all (its sitemap `<lastmod>` said it had not changed). */
  requested?: boolean;
}

/** A URL a crawl took up or passed over, reported as it happens (for live progress). */
export type CrawlUrlEvent =
  | { kind: 'found'; url: string }
  /** Not requested: robots.txt disallows it, or `maxPages` was reached first. */
  | { kind: 'skipped'; url: string; reason: 'robots' | 'limit' };

/** The raw bytes of one fetched file, for a file loader to parse. */
export interface WebFile {
  bytes: Uint8Array;
  /** The `Content-Type` the server sent (lower-case essence), empty when it sent none. */
  mimeType: string;
  /** The URL after redirects. */
  finalUrl: string;
}

/** A page that could not be loaded during a crawl; the crawl goes on without it. */
export interface WebPageFailure {
  url: string;
  /** Stable error code (`upstream_failed`, `payload_too_large`, `unsupported_media_type`, `forbidden`, ...). */
  code: string;
  message: string;
  /** True for timeouts, 429 and 5xx: the page may load on a later attempt. */
  retryable: boolean;
  /** Set when the page was passed over rather than broken: robots.txt disallows it, or its type is not read. */
  skipped?: 'robots' | 'type';
}

export interface SiteCrawlOptions {
  /** Sitemap URL (the API's `config.sitemap`); when absent the crawler discovers one or follows links. */
  sitemap?: string;
  /** Start URL (the API's `config.source_url`). At least one of `sitemap` and `sourceUrl` is required. */
  sourceUrl?: string;
  /** At most this many pages are yielded (default 100). */
  maxPages?: number;
  /** Link depth from the start URL when crawling links (default 3). */
  maxDepth?: number;
  /** Only URLs matching one of these patterns (`*` globs; `/.../` limited to literal text, `.*`, `^` and `$`). */
  include?: readonly string[];
  /** URLs matching one of these are skipped. */
  exclude?: readonly string[];
  signal?: AbortSignal;
  /** Called for each URL taken up or passed over, as the crawl goes. */
  onUrl?: (event: CrawlUrlEvent) => void;
}

/** A crawl that asks for the pages of the last one conditionally. */
export interface SiteRecrawlOptions extends SiteCrawlOptions {
  /** What the last crawl kept of a URL; pages without an entry are loaded as usual. */
  previous: (url: string) => PageValidators | undefined;
  /**
   * The URLs the last crawl kept. A link crawl queues them too: an unchanged page is not parsed,
   * so the links on it are not read again.
   */
  known?: readonly string[];
}

/**
 * Loads web pages for `web_page` and `web_site` datasources. Implementations must refuse private,
 * loopback and link-local addresses unless explicitly configured otherwise, cap bytes, time and
 * redirects, and respect robots.txt (for single pages too, unless told to ignore it).
 */
export interface WebLoader {
  readonly name: string;
  /** The port contract this adapter implements; `createRagdesk` accepts only `'v1'`. */
  readonly specificationVersion: SpecificationVersion;
  /**
   * Fetches and extracts one page. Throws a `RagdeskError` with a stable code on failure. Follows
   * robots.txt like a crawl (a disallowed page is `forbidden`) unless `ignoreRobots` is true (a page
   * its owner asked for explicitly).
   */
  loadPage(url: string, options?: { signal?: AbortSignal; ignoreRobots?: boolean }): Promise<WebPage>;
  /**
   * Fetches one file's bytes of any type, under the same address policy, redirect, time and size
   * limits as a page (`maxBytes` can only lower the loader's cap) and, unless `ignoreRobots`, the
   * same robots.txt check; `maxRedirects` can only lower the loader's. Throws a `RagdeskError` with
   * a stable code on failure.
   */
  fetchFile?(
    url: string,
    options?: { signal?: AbortSignal; maxBytes?: number; maxRedirects?: number; ignoreRobots?: boolean },
  ): Promise<WebFile>;
  /**
   * Optional: `loadPage` asked conditionally with what a previous load kept: a 304, or a body with
   * the same hash, answers `WebPageUnchanged` after one request and no parsing.
   */
  loadPageIfChanged?(
    url: string,
    previous: PageValidators,
    options?: { signal?: AbortSignal; ignoreRobots?: boolean },
  ): Promise<WebPage | WebPageUnchanged>;
  /** Pages of a site, each loaded once, in discovery order; failures are yielded, not thrown. */
  crawlSite(options: SiteCrawlOptions): AsyncIterable<WebPage | WebPageFailure>;
  /**
   * Optional: `crawlSite` asking for each page the last crawl kept conditionally (see
   * `loadPageIfChanged`); pages that did not change are yielded as `WebPageUnchanged`.
   */
  recrawlSite?(options: SiteRecrawlOptions): AsyncIterable<WebPage | WebPageFailure | WebPageUnchanged>;
  /** Releases what loading holds (parser threads); called by `ragdesk.close()` after the last sync. */
  close?(): Promise<void>;
}
