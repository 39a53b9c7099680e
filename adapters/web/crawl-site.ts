/**
 * Whole sites: pages from a sitemap (given, or discovered through robots.txt then /sitemap.xml),
 * else a breadth-first same-origin link crawl. Pages load concurrently (the per-host limit applies)
 * but are yielded in discovery order; a page that fails is yielded as a `WebPageFailure`.
 */
import { RagdeskError } from '../../src/errors.js';
import type {
  CrawlUrlEvent,
  PageValidators,
  SiteCrawlOptions,
  SiteRecrawlOptions,
  WebPage,
  WebPageFailure,
  WebPageUnchanged,
} from '../../src/ports/web-loader.js';
import { parseHttpUrl, resolveAllowedAddress } from './address-policy.js';
import { chooseSource, type Candidate, type CandidateSource } from './crawl-sources.js';
import type { FetchContext, RedirectCheck } from './fetch-resource.js';
import { robotsOnRedirect } from './page-robots.js';
import { robotsLookup, type RobotsLookup } from './site-robots.js';
import { nextTurn } from '../../src/util/next-turn.js';
import { normalizeUrl, urlFilter, type UrlMatcher } from './url-filters.js';

type LoadPage = (
  url: string,
  signal: AbortSignal,
  beforeRedirect: RedirectCheck,
  previous: PageValidators | undefined,
) => Promise<WebPage | WebPageUnchanged>;
type CrawlItem = WebPage | WebPageFailure | WebPageUnchanged;

function count(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) {
    throw new RagdeskError('invalid_request', `${name} must be an integer >= ${min}`, {
      details: { issues: [{ path: name, message: `must be an integer >= ${min}` }] },
    });
  }
  return value;
}

function failure(url: string, error: unknown): WebPageFailure {
  if (RagdeskError.isInstance(error)) {
    const skipped = error.code === 'unsupported_media_type' ? { skipped: 'type' as const } : {};
    return { url, code: error.code, message: error.message, retryable: error.retryable, ...skipped };
  }
  return { url, code: 'internal', message: error instanceof Error ? error.message : String(error), retryable: false };
}

interface Admission {
  candidate: Candidate;
  /** Set when the page must not be requested; yielded in its place. */
  blocked?: WebPageFailure;
}

/** How many URLs a crawl may still look at; see `crawlUrlsPerPage`. */
interface UrlBudget {
  left: number;
}

/**
 * Next candidate that is new, passes include/exclude and robots.txt (the start URL skips the
 * filter). Every URL taken from the source spends the budget, duplicates and refused ones too, so
 * a sitemap of millions of disallowed URLs ends the crawl after `budget` of them.
 */
async function admit(
  source: CandidateSource,
  seen: Set<string>,
  filter: UrlMatcher,
  robots: RobotsLookup,
  budget: UrlBudget,
  report: (event: CrawlUrlEvent) => void,
): Promise<Admission | undefined> {
  for (;;) {
    if (budget.left <= 0) return undefined;
    budget.left--;
    // Filtering and robots.txt cost up to a few ms per URL (their step limits); refused URLs would
    // otherwise run back to back in one turn of the event loop (awaits of settled promises).
    await nextTurn();
    const candidate = await source.next();
    if (!candidate) return undefined;
    const url = normalizeUrl(candidate.url);
    if (!url || seen.has(url)) continue;
    seen.add(url);
    if (!candidate.isStart && !filter(url)) continue;
    report({ kind: 'found', url });
    const rules = await robots(new URL(url));
    const admitted = { ...candidate, url };
    if (rules.unreachable) return { candidate: admitted, blocked: failure(url, rules.unreachable) };
    if (rules.isAllowed(new URL(url))) return { candidate: admitted };
    if (candidate.isStart) {
      const blocked = { url, code: 'forbidden', message: `robots.txt disallows ${url}`, retryable: false, skipped: 'robots' as const };
      return { candidate: admitted, blocked };
    }
    report({ kind: 'skipped', url, reason: 'robots' });
  }
}

/**
 * Whether the sitemap says the page has not changed since it was last requested: its `<lastmod>`
 * (the end of the period it names) is not after `previous.fetchedAt`. A page without either is
 * asked for (conditionally, when it has validators).
 */
function unchangedSince(candidate: Candidate, previous: PageValidators | undefined): WebPageUnchanged | undefined {
  if (candidate.lastmod === undefined || !previous?.fetchedAt) return undefined;
  const fetchedAt = Date.parse(previous.fetchedAt);
  if (!Number.isFinite(fetchedAt) || candidate.lastmod > fetchedAt) return undefined;
  return { url: candidate.url, finalUrl: candidate.url, unchanged: true, validators: previous, requested: false };
}

/** Reports the links still queued when the crawl stopped at `maxPages` as skipped for the limit. */
function reportLimit(source: CandidateSource, seen: Set<string>, filter: UrlMatcher, report: (event: CrawlUrlEvent) => void): void {
  for (const queued of source.rest?.() ?? []) {
    const url = normalizeUrl(queued);
    if (!url || seen.has(url) || !filter(url)) continue;
    seen.add(url);
    report({ kind: 'found', url });
    report({ kind: 'skipped', url, reason: 'limit' });
  }
}

/**
 * Crawls a site. With `previous` (a recrawl), pages the last crawl kept are asked for
 * conditionally, and a link crawl queues the last crawl's URLs (`known`) too: an unchanged page is
 * not parsed, so its links would otherwise not be found again.
 */
export async function* crawlSite(
  context: FetchContext,
  loadPage: LoadPage,
  options: SiteCrawlOptions & Partial<Pick<SiteRecrawlOptions, 'previous' | 'known'>>,
): AsyncGenerator<CrawlItem> {
  if (!options.sitemap && !options.sourceUrl) {
    throw new RagdeskError('invalid_request', 'a site crawl needs a sitemap or a source URL', {
      details: { issues: [{ path: 'sourceUrl', message: 'sitemap or sourceUrl is required' }] },
    });
  }
  const maxPages = count('maxPages', options.maxPages, 100, 1);
  const maxDepth = count('maxDepth', options.maxDepth, 3, 0);
  const filter = urlFilter(options.include, options.exclude);
  // A site whose own address is refused cannot be started at all: throw, don't yield.
  for (const entry of [options.sitemap, options.sourceUrl]) {
    if (entry) await resolveAllowedAddress(parseHttpUrl(entry), context.options);
  }
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(options.signal?.reason);
  options.signal?.throwIfAborted();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const signal = controller.signal;
  try {
    const robots = robotsLookup(context, signal);
    const beforeRedirect = robotsOnRedirect(robots);
    // The frontier (URLs seen and queued) is bounded by max_pages, whatever the sitemaps or pages list.
    const maxUrls = maxPages * context.options.crawlUrlsPerPage;
    const budget: UrlBudget = { left: maxUrls };
    const source = await chooseSource(context, options, robots, signal, maxDepth, maxUrls);
    if (options.known?.length) source.addLinks?.(options.known, 1);
    const report = (event: CrawlUrlEvent): void => options.onUrl?.(event);
    const windowSize = context.options.perHostConcurrency * 2;
    const inFlight: Array<{ candidate: Candidate; result: Promise<CrawlItem> }> = [];
    const seen = new Set<string>();
    const yieldedFinalUrls = new Set<string>();
    let produced = 0;
    for (;;) {
      while (inFlight.length < windowSize && produced + inFlight.length < maxPages) {
        const admission = await admit(source, seen, filter, robots, budget, report);
        if (!admission) break;
        const { candidate, blocked } = admission;
        const previous = options.previous?.(candidate.url);
        const untouched = blocked ? undefined : unchangedSince(candidate, previous);
        const result = blocked
          ? Promise.resolve<CrawlItem>(blocked)
          : untouched
            ? Promise.resolve<CrawlItem>(untouched)
            : loadPage(candidate.url, signal, beforeRedirect, previous).catch((error: unknown) => failure(candidate.url, error));
        inFlight.push({ candidate, result });
      }
      const head = inFlight.shift();
      if (!head) {
        if (produced >= maxPages) reportLimit(source, seen, filter, report);
        return;
      }
      const item = await head.result;
      signal.throwIfAborted();
      if ('document' in item || 'unchanged' in item) {
        const finalUrl = normalizeUrl(item.finalUrl) ?? item.finalUrl;
        if (yieldedFinalUrls.has(finalUrl)) continue; // redirected onto a page already yielded
        yieldedFinalUrls.add(finalUrl);
        seen.add(finalUrl);
        if ('document' in item) source.addLinks?.(item.links, head.candidate.depth + 1);
      }
      produced++;
      yield item;
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    controller.abort(); // a consumer that stops early cancels what is still loading
  }
}
