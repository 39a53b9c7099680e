/** `webLoader()`: the `WebLoader` port over node:http(s) with an SSRF guard, limits and robots.txt. */
import type { SiteCrawlOptions, WebLoader } from '../../src/ports/web-loader.js';
import { crawlSite } from './crawl-site.js';
import type { FetchContext } from './fetch-resource.js';
import { hostLimiter } from './host-limiter.js';
import { loadWebPage } from './load-page.js';
import { resolveOptions, type WebLoaderOptions } from './options.js';

export function webLoader(options: WebLoaderOptions = {}): WebLoader {
  const resolved = resolveOptions(options);
  const context: FetchContext = { options: resolved, limiter: hostLimiter(resolved.perHostConcurrency) };
  return {
    name: 'web',
    loadPage: (url, loadOptions) => loadWebPage(context, url, loadOptions?.signal),
    crawlSite: (crawlOptions: SiteCrawlOptions) =>
      crawlSite(context, (url, signal) => loadWebPage(context, url, signal), crawlOptions),
  };
}
