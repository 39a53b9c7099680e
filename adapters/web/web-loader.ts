/** `webLoader()`: the `WebLoader` port over node:http(s) with an SSRF guard, limits and robots.txt. */
import type {
  PageValidators,
  SiteCrawlOptions,
  SiteRecrawlOptions,
  WebLoader,
  WebPage,
  WebPageFailure,
} from '../../src/ports/web-loader.js';
import { workerEntry, workerPool } from '../kit/worker-pool.js';
import { crawlSite } from './crawl-site.js';
import { fetchResource, type FetchContext, type RedirectCheck } from './fetch-resource.js';
import { hostLimiter } from './host-limiter.js';
import { extractHtml, type ExtractedHtml } from '../loaders/html/extract-html.js';
import type { ExtractPageMessage } from './extract-worker.js';
import { loadPageIfChanged, loadWebPage, type PageExtractor } from './load-page.js';
import { resolveOptions, type WebLoaderOptions } from './options.js';
import { assertRobotsAllow, robotsOnRedirect } from './page-robots.js';

export function webLoader(options: WebLoaderOptions = {}): WebLoader {
  const resolved = resolveOptions(options);
  const context: FetchContext = { options: resolved, limiter: hostLimiter(resolved.perHostConcurrency) };
  // Extraction is synchronous: on the main thread a 5.5 MB page of 220,000 links holds the event
  // loop 0.5-0.7 s (with linkedom, before 2026-11-26, a 1.7 MB page held it 2.1 s: bench:parse).
  const pool =
    resolved.parser === 'worker'
      ? workerPool({
          entry: workerEntry(new URL('./extract-worker.js', import.meta.url)),
          timeoutMs: resolved.parseTimeoutMs,
          threads: resolved.parserThreads,
          isolation: resolved.parserIsolation,
          ...(resolved.parserIsolation === 'process' ? { maxMemoryMb: resolved.parserMaxMemoryMb } : {}),
        })
      : undefined;
  const extract: PageExtractor = pool
    ? async (html, pageUrl, signal) => {
        const message: Omit<ExtractPageMessage, 'id'> = { html, pageUrl, maxLinks: resolved.maxLinksPerPage };
        return (await pool.run({ message, subject: pageUrl, mimeType: 'text/html', ...(signal ? { signal } : {}) })) as ExtractedHtml;
      }
    : async (html, pageUrl) => extractHtml(html, { pageUrl, maxLinks: resolved.maxLinksPerPage });
  const load = (url: string, signal?: AbortSignal, beforeRedirect?: RedirectCheck) =>
    loadWebPage(context, extract, url, signal, beforeRedirect);
  const loadIfChanged = (url: string, signal: AbortSignal, beforeRedirect: RedirectCheck, previous: PageValidators | undefined) =>
    loadPageIfChanged(context, extract, url, previous, signal, beforeRedirect);
  /** robots.txt for the URL and, on the same cache, for every redirect hop; none when ignored. */
  const robotsFor = async (url: string, ignore: boolean | undefined, signal: AbortSignal | undefined) =>
    ignore === true ? undefined : robotsOnRedirect(await assertRobotsAllow(context, url, signal));
  return {
    name: 'web',
    specificationVersion: 'v1',
    loadPage: async (url, loadOptions) => {
      const beforeRedirect = await robotsFor(url, loadOptions?.ignoreRobots, loadOptions?.signal);
      return load(url, loadOptions?.signal, beforeRedirect);
    },
    fetchFile: async (url, fileOptions) => {
      const signal = fileOptions?.signal;
      const beforeRedirect = await robotsFor(url, fileOptions?.ignoreRobots, signal);
      const fetched = await fetchResource(context, url, 'file', {
        ...(signal ? { signal } : {}),
        ...(beforeRedirect ? { beforeRedirect } : {}),
        ...(fileOptions?.maxBytes === undefined ? {} : { maxBytes: fileOptions.maxBytes }),
        ...(fileOptions?.maxRedirects === undefined ? {} : { maxRedirects: fileOptions.maxRedirects }),
      });
      return { bytes: fetched.body, mimeType: fetched.mediaType.mime, finalUrl: fetched.finalUrl };
    },
    loadPageIfChanged: async (url, previous, loadOptions) => {
      const beforeRedirect = await robotsFor(url, loadOptions?.ignoreRobots, loadOptions?.signal);
      return loadPageIfChanged(context, extract, url, previous, loadOptions?.signal, beforeRedirect);
    },
    crawlSite: (crawlOptions: SiteCrawlOptions) => crawlSite(context, load, crawlOptions) as AsyncGenerator<WebPage | WebPageFailure>,
    recrawlSite: (crawlOptions: SiteRecrawlOptions) => crawlSite(context, loadIfChanged, crawlOptions),
    close: async () => pool?.close(),
  };
}
