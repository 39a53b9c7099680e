/**
 * Where a crawl's page URLs come from: a given sitemap; else the sitemaps robots.txt lists, then
 * /sitemap.xml; else a breadth-first frontier of same-origin links from the start URL.
 */
import type { SiteCrawlOptions } from '../../src/ports/web-loader.js';
import { parseHttpUrl } from './address-policy.js';
import { fetchResource, type FetchContext } from './fetch-resource.js';
import type { RobotsLookup } from './site-robots.js';
import { sitemapPages, type SitemapPage } from './sitemap.js';
import { normalizeUrl } from './url-filters.js';

export interface Candidate {
  url: string;
  depth: number;
  isStart: boolean;
  /** From a sitemap's `<lastmod>`: the page has not changed after this time (ms since the epoch). */
  lastmod?: number;
}

export interface CandidateSource {
  next(): Promise<Candidate | undefined>;
  /** Link crawl only: queue a yielded page's links one level deeper. */
  addLinks?(links: readonly string[], depth: number): void;
  /** Link crawl only: URLs queued so far (what the frontier holds in memory). */
  readonly queued?: number;
  /** Link crawl only: the URLs still queued, not yet taken (counted as skipped when the crawl stops at its page limit). */
  rest?(): string[];
}

function fromIterator(pages: AsyncIterator<SitemapPage>): CandidateSource {
  return {
    async next() {
      const step = await pages.next();
      if (step.done) return undefined;
      const { url, lastmod } = step.value;
      return { url, depth: 0, isStart: false, ...(lastmod === undefined ? {} : { lastmod }) };
    },
  };
}

/**
 * Breadth-first same-origin links from `start`. At most `maxUrls` URLs are ever queued, however
 * many links the pages carry (a page of 220,000 links grew the heap by hundreds of MB per page):
 * the crawl looks at no more than that many URLs anyway (see `crawlSite`).
 */
export function linkFrontier(start: string, maxDepth: number, maxUrls: number): CandidateSource {
  const queue: Candidate[] = [{ url: start, depth: 0, isStart: true }];
  const queued = new Set([start]);
  return {
    next: () => Promise.resolve(queue.shift()),
    addLinks(links, depth) {
      if (depth > maxDepth) return;
      for (const link of links) {
        if (queued.size >= maxUrls) return;
        if (queued.has(link)) continue;
        queued.add(link);
        queue.push({ url: link, depth, isStart: false });
      }
    },
    get queued() {
      return queued.size;
    },
    rest: () => queue.map((candidate) => candidate.url),
  };
}

/** Sitemap pages, or undefined when the sitemaps list none (so discovery can move on). */
async function nonEmpty(urls: AsyncGenerator<SitemapPage>): Promise<AsyncIterator<SitemapPage> | undefined> {
  const first = await urls.next();
  if (first.done) return undefined;
  return (async function* () {
    yield first.value;
    yield* urls;
  })();
}

export async function chooseSource(
  context: FetchContext,
  options: SiteCrawlOptions,
  robots: RobotsLookup,
  signal: AbortSignal,
  maxDepth: number,
  maxUrls: number,
): Promise<CandidateSource> {
  const read = (roots: string[], strictRoots: boolean): AsyncGenerator<SitemapPage> =>
    sitemapPages(roots, {
      fetch: (url) => fetchResource(context, url, 'sitemap', { signal }),
      maxBytes: context.options.maxBytes,
      strictRoots,
      signal,
    });
  if (options.sitemap) return fromIterator(read([parseHttpUrl(options.sitemap).href], true));
  const start = parseHttpUrl(options.sourceUrl ?? '');
  const startRobots = await robots(start);
  // robots.txt unreachable: fetch nothing more; the start URL is yielded as a retryable failure.
  if (startRobots.unreachable) return linkFrontier(normalizeUrl(start.href) ?? start.href, maxDepth, maxUrls);
  const listed = startRobots.sitemaps;
  const fallback = new URL('/sitemap.xml', start).href;
  const discovered =
    (listed.length > 0 ? await nonEmpty(read(listed, false)) : undefined) ??
    (listed.includes(fallback) ? undefined : await nonEmpty(read([fallback], false)));
  if (discovered) return fromIterator(discovered);
  return linkFrontier(normalizeUrl(start.href) ?? start.href, maxDepth, maxUrls);
}
