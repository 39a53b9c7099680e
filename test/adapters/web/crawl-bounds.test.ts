/**
 * Crawls whose sitemaps or pages list far more URLs than the crawl will ever load, and robots.txt
 * for single pages (`web_page`) as for site crawls.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hnswIndex } from '../../../adapters/hnsw/index.js';
import { localEmbeddings } from '../../../adapters/local/index.js';
import { sqliteStores } from '../../../adapters/sqlite/index.js';
import { webLoader } from '../../../adapters/web/index.js';
import { linkFrontier } from '../../../adapters/web/crawl-sources.js';
import { createRagdesk, RagdeskError } from '../../../src/index.js';
import type { WebPage, WebPageFailure } from '../../../src/ports/web-loader.js';
import { startHttpServer, type TestHttpServer } from '../../helpers/http-server.js';
import { tempDir } from '../../helpers/setups.js';

const CHILD_SITEMAPS = 30;
const URLS_PER_SITEMAP = 20_000;
const LINKS_PER_PAGE = 1_000;

async function collect(items: AsyncIterable<WebPage | WebPageFailure>): Promise<(WebPage | WebPageFailure)[]> {
  const out: (WebPage | WebPageFailure)[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('crawl frontier bounded by maxPages', () => {
  let sitemaps: TestHttpServer;
  let links: TestHttpServer;

  beforeAll(async () => {
    // A sitemap index of 30 sitemaps of 20,000 URLs each, every one disallowed by robots.txt.
    sitemaps = await startHttpServer((request, response, server) => {
      const path = request.url ?? '/';
      if (path === '/robots.txt') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        return void response.end(`User-agent: *\nDisallow: /p/\nSitemap: ${server.origin}/index.xml\n`);
      }
      if (path === '/index.xml') {
        const entries = Array.from({ length: CHILD_SITEMAPS }, (_, i) => `<sitemap><loc>${server.origin}/sm/${i}.xml</loc></sitemap>`);
        response.writeHead(200, { 'content-type': 'application/xml' });
        return void response.end(`<sitemapindex>${entries.join('')}</sitemapindex>`);
      }
      const child = /^\/sm\/(\d+)\.xml$/.exec(path);
      if (child) {
        const urls = Array.from({ length: URLS_PER_SITEMAP }, (_, i) => `<url><loc>${server.origin}/p/${child[1]}-${i}</loc></url>`);
        response.writeHead(200, { 'content-type': 'application/xml' });
        return void response.end(`<urlset>${urls.join('')}</urlset>`);
      }
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<title>page</title><p>text</p>');
    });
    // Every page links to 1,000 pages that are all new.
    links = await startHttpServer((request, response) => {
      const path = request.url ?? '/';
      if (path === '/robots.txt' || path === '/sitemap.xml') return void response.writeHead(404).end();
      const anchors = Array.from({ length: LINKS_PER_PAGE }, (_, i) => `<a href="${path === '/' ? '' : path}/${i}">${i}</a>`);
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(`<title>${path}</title><main><p>page ${path}</p>${anchors.join(' ')}</main>`);
    });
  });
  afterAll(async () => {
    await sitemaps?.close();
    await links?.close();
  });

  it('ends a crawl of 600,000 disallowed sitemap URLs after maxPages × crawlUrlsPerPage of them, reading one sitemap', async () => {
    const loader = webLoader({ allowPrivateNetwork: true, crawlUrlsPerPage: 10 });
    try {
      const items = await collect(loader.crawlSite({ sourceUrl: `${sitemaps.origin}/`, maxPages: 20 }));
      expect(items).toEqual([]);
      const childReads = sitemaps.requests.filter((path) => path.startsWith('/sm/'));
      expect(childReads).toEqual(['/sm/0.xml']);
      expect(sitemaps.requests.some((path) => path.startsWith('/p/'))).toBe(false);
    } finally {
      await loader.close?.();
    }
  });

  it('queues at most maxPages × crawlUrlsPerPage links, however many the pages carry', async () => {
    const frontier = linkFrontier('http://x.test/', 3, 40);
    const many = Array.from({ length: 220_000 }, (_, i) => `http://x.test/${i}`);
    frontier.addLinks!(many, 1);
    frontier.addLinks!(
      many.map((url) => `${url}/more`),
      2,
    );
    expect(frontier.queued).toBe(40);

    const loader = webLoader({ allowPrivateNetwork: true, crawlUrlsPerPage: 5 });
    try {
      const items = await collect(loader.crawlSite({ sourceUrl: `${links.origin}/`, maxPages: 6, maxDepth: 3 }));
      expect(items.filter((item) => 'document' in item)).toHaveLength(6);
      const pages = links.requests.filter((path) => path !== '/robots.txt' && path !== '/sitemap.xml');
      expect(pages.length).toBeLessThanOrEqual(6 + 2 * 2); // the pages, plus what the window had started
    } finally {
      await loader.close?.();
    }
  });

  it('keeps the first maxLinksPerPage links of a page, on the parser thread and on the main thread', async () => {
    for (const parser of ['worker', 'main'] as const) {
      const loader = webLoader({ allowPrivateNetwork: true, maxLinksPerPage: 25, parser });
      try {
        const page = await loader.loadPage(`${links.origin}/`);
        expect(page.links).toEqual(Array.from({ length: 25 }, (_, i) => `${links.origin}/${i}`));
      } finally {
        await loader.close?.();
      }
    }
    const unbounded = webLoader({ allowPrivateNetwork: true });
    try {
      expect((await unbounded.loadPage(`${links.origin}/`)).links).toHaveLength(LINKS_PER_PAGE);
    } finally {
      await unbounded.close?.();
    }
  });

  it('refuses a bad crawlUrlsPerPage or maxLinksPerPage', () => {
    expect(() => webLoader({ crawlUrlsPerPage: 0 })).toThrow(RagdeskError);
    expect(() => webLoader({ maxLinksPerPage: -1 })).toThrow(RagdeskError);
  });
});

describe('robots.txt for single pages (web_page)', () => {
  let site: TestHttpServer;
  let robots: { status: number; body: string };

  beforeAll(async () => {
    robots = { status: 200, body: 'User-agent: *\nDisallow: /private\n' };
    site = await startHttpServer((request, response) => {
      if (request.url === '/robots.txt') {
        response.writeHead(robots.status, { 'content-type': 'text/plain' });
        return void response.end(robots.body);
      }
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(`<title>${request.url}</title><main><p>Page ${request.url} about ROBOTS-PAGE glaciers.</p></main>`);
    });
  });
  afterAll(() => site?.close());

  it('refuses a page robots.txt disallows unless told to ignore it, and loads the others', async () => {
    const loader = webLoader({ allowPrivateNetwork: true, timeoutMs: 3_000 });
    try {
      site.requests.length = 0;
      const refused = await loader.loadPage(`${site.origin}/private/report`).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RagdeskError);
      expect(refused).toMatchObject({ code: 'forbidden', details: { reason: 'robots_txt' } });
      expect(site.requests).toEqual(['/robots.txt']);
      expect((await loader.loadPage(`${site.origin}/public`)).title).toBe('/public');
      expect((await loader.loadPage(`${site.origin}/private/report`, { ignoreRobots: true })).title).toBe('/private/report');

      robots = { status: 404, body: '' };
      expect((await loader.loadPage(`${site.origin}/private/x`)).title).toBe('/private/x');
      robots = { status: 503, body: '' };
      const unreachable = await loader.loadPage(`${site.origin}/public`).catch((error: unknown) => error);
      expect(unreachable).toMatchObject({ retryable: true });
    } finally {
      robots = { status: 200, body: 'User-agent: *\nDisallow: /private\n' };
      await loader.close?.();
    }
  });

  it('a web_page datasource follows robots.txt; config.ignore_robots_txt loads the page anyway', async () => {
    const temp = tempDir('ragdesk-robots-');
    const ragdesk = createRagdesk({
      ...sqliteStores({ path: join(temp.dir, 'ragdesk.db') }),
      index: hnswIndex({ dir: join(temp.dir, 'indexes') }),
      embeddings: localEmbeddings(),
      web: webLoader({ allowPrivateNetwork: true, timeoutMs: 3_000 }),
    });
    try {
      const datastore = await ragdesk.datastores.create({ name: 'robots' });
      const url = `${site.origin}/private/page`;
      const respected = await ragdesk.datasources.create({ type: 'web_page', datastoreId: datastore.id, config: { source_url: url } });
      const refused = await ragdesk.datasources.waitUntilSettled(respected.id);
      expect(refused.status).toBe('error');
      expect(refused.error).toMatch(/robots\.txt/);
      // Created the moment the first job ended: the job runner must not lose this wake-up while it
      // is still looking for work after that job (it did: the datasource stayed pending forever).
      const asked = await ragdesk.datasources.create({
        type: 'web_page',
        datastoreId: datastore.id,
        config: { source_url: url, ignore_robots_txt: true },
      });
      expect((await ragdesk.datasources.waitUntilSettled(asked.id)).status).toBe('synched');
      expect((await datastore.query({ query: 'ROBOTS-PAGE glaciers', topK: 1 }))[0]?.source).toBe(url);
    } finally {
      await ragdesk.close();
      temp.remove();
    }
  });
});
