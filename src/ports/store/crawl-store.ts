/** Pages skipped by a crawl, by why. */
export interface CrawlSkips {
  /** robots.txt disallows the page. */
  robots: number;
  /** The server answered with a content type the loader does not read. */
  type: number;
  /** The crawl's page or URL budget (`max_pages`) was spent. */
  limit: number;
}

/** Counts of one crawl of a `web_site` (or one load of a `web_page`), written as it goes. */
export interface CrawlCounts {
  /** URLs the crawl took up (from sitemaps or links), loaded or not. */
  found: number;
  /** Pages loaded and indexed (new or changed). */
  fetched: number;
  /** Pages the server reported unchanged (304, same content hash, sitemap `lastmod` not newer). */
  unchanged: number;
  skipped: CrawlSkips;
  failed: number;
}

/** What a finished crawl changed. */
export interface CrawlResult {
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  failed: number;
}

/** The crawl state of a web datasource: the running (or last) crawl's counts and the last result. */
export interface CrawlState {
  datasourceId: string;
  counts: CrawlCounts;
  startedAt: string;
  /** Null while the crawl runs. */
  finishedAt: string | null;
  /** Set when a crawl finishes; kept while the next one runs. */
  lastResult: CrawlResult | null;
}

export type CrawlPageStatus = 'fetched' | 'unchanged' | 'skipped' | 'failed';

/** One URL a crawl looked at, with what the next crawl needs to ask for it conditionally. */
export interface CrawlPageRecord {
  /** The crawled datasource (the `web_site`, or the `web_page` itself). */
  datasourceId: string;
  /** The page's URL after redirects (its identity); the asked-for URL when it never loaded. */
  url: string;
  status: CrawlPageStatus;
  /** Why a page was skipped (`robots`, `type`, `limit`) or the failure's error code. */
  reason: string | null;
  /** Human-readable failure, null unless `status` is `failed` (or `skipped` with a message). */
  error: string | null;
  /** The `web_page` datasource holding the page's chunks, when it has one. */
  pageId: string | null;
  /** Validators the server sent with the page, sent back on the next crawl. */
  etag: string | null;
  lastModified: string | null;
  /** Hash of the page's extracted text: an unchanged hash costs no chunking or embedding. */
  contentHash: string | null;
  /**
   * When the page was last requested (the start of the crawl that did; kept by a crawl that did
   * not request it because its sitemap `<lastmod>` was not after this). Optional: a store that
   * does not keep it makes every page of a refresh a conditional request.
   */
  fetchedAt?: string | null;
  updatedAt: string;
}

/**
 * Crawl progress and per-page records of web datasources (Store conformance: `crawls`). Deleting
 * a datasource deletes its crawl state and pages in the same step.
 */
export interface CrawlStore {
  /** Inserts or replaces the crawl state of `state.datasourceId` (an unknown datasource is ignored). */
  putCrawlState(state: CrawlState): Promise<void>;
  /** The crawl states of these datasources, in the order of `ids`; ids without one are skipped. */
  getCrawlStates(ids: readonly string[]): Promise<CrawlState[]>;
  /** Inserts or replaces pages by (datasourceId, url). */
  putCrawlPages(pages: readonly CrawlPageRecord[]): Promise<void>;
  /** A datasource's pages ordered by URL (code point order), and how many it has in all. */
  listCrawlPages(datasourceId: string, page: { offset: number; limit: number }): Promise<{ items: CrawlPageRecord[]; total: number }>;
  /** Deletes the datasource's pages with these URLs. */
  deleteCrawlPages(datasourceId: string, urls: readonly string[]): Promise<void>;
}
