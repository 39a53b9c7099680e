/**
 * A site's chunk count moves while its crawl runs: new pages are stored as they come. The local
 * site holds its last page until the test releases it, so the crawl is provably still under way
 * when the count is read (no sleeps: the test waits for what it checks). A crawl that fails after
 * pages were stored removes them again.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { localEmbeddings } from '../../adapters/local/index.js';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import { webLoader } from '../../adapters/web/index.js';
import { createRagdesk, type Ragdesk } from '../../src/index.js';
import type { UsageLimits } from '../../src/datasources/usage-limits.js';
import { startHttpServer, type TestHttpServer } from '../helpers/http-server.js';
import { tempDir } from '../helpers/setups.js';

const TEXTS: Record<string, string> = {
  '/p1': 'Page one is about LIVE-ALPHA glaciers and their slow movement.',
  '/p2': 'Page two is about LIVE-BETA harbours and the ships in them.',
  '/p3': 'Page three is about LIVE-GAMMA orchards in the spring.',
  '/p4': 'Page four is about LIVE-DELTA deserts at night, and much more besides. '.repeat(3),
};

/** Pages listed in a sitemap; `/p4` is answered only once `release()` is called. */
function heldSite() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const handler = (request: IncomingMessage, response: ServerResponse, server: TestHttpServer): void => {
    const path = (request.url ?? '/').split('?')[0]!;
    if (path === '/robots.txt') return void response.writeHead(404).end();
    if (path === '/sitemap.xml') {
      const urls = Object.keys(TEXTS)
        .map((page) => `<url><loc>${server.origin}${page}</loc></url>`)
        .join('');
      response.writeHead(200, { 'content-type': 'application/xml' });
      return void response.end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`);
    }
    const answer = (): void => {
      const text = TEXTS[path];
      if (text === undefined) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<html><head><title>${path}</title></head><body><main><p>${text}</p></main></body></html>`);
    };
    if (path === '/p4') void released.then(answer);
    else answer();
  };
  return { handler, release };
}

describe('live chunk counts during a crawl', () => {
  let temp: ReturnType<typeof tempDir>;
  let server: TestHttpServer | undefined;
  let ragdesk: Ragdesk | undefined;
  let release: (() => void) | undefined;

  beforeEach(() => {
    temp = tempDir('ragdesk-live-counts-');
  });
  afterEach(async () => {
    release?.();
    await ragdesk?.close();
    await server?.close();
    temp.remove();
  });

  async function start(usage?: UsageLimits) {
    const site = heldSite();
    release = site.release;
    server = await startHttpServer(site.handler);
    ragdesk = createRagdesk({
      ...sqliteStores({ path: join(temp.dir, 'ragdesk.db') }),
      index: hnswIndex({ dir: join(temp.dir, 'indexes') }),
      embeddings: localEmbeddings(),
      web: webLoader({ allowPrivateUrls: ['127.0.0.1'], parser: 'main', timeoutMs: 60_000 }),
      ...(usage ? { usage } : {}),
    });
    const datastore = await ragdesk.datastores.create({ name: 'live' });
    const created = await ragdesk.datasources.create({
      type: 'web_site',
      datastoreId: datastore.id,
      config: { sitemap: `${server.origin}/sitemap.xml` },
    });
    return { ragdesk, datastore, siteId: created.id };
  }

  it("raises the site's chunk count and the datastore's totals while the last page is still held", async () => {
    const { ragdesk, datastore, siteId } = await start();
    await expect.poll(async () => (await ragdesk.datasources.get(siteId)).nbChunks, { timeout: 30_000 }).toBeGreaterThan(0);
    // /p4 has not been answered: the crawl cannot have ended.
    const during = await ragdesk.datasources.get(siteId);
    expect(during.status).toBe('running');
    expect(during.nbTokens).toBeGreaterThan(0);
    const totals = await datastore.stats();
    expect(totals.chunks).toBeGreaterThan(0);
    expect(totals.chunks).toBeLessThanOrEqual(during.nbChunks);
    // What is stored is searchable already.
    expect((await datastore.query({ query: 'LIVE-ALPHA', mode: 'lexical', topK: 1 }))[0]?.text).toContain('LIVE-ALPHA');

    release!();
    const done = await ragdesk.datasources.waitUntilSettled(siteId, 60_000);
    expect(done.status).toBe('synched');
    const pages = (await ragdesk.datasources.list(datastore.id)).filter((source) => source.groupId === siteId);
    expect(pages).toHaveLength(4);
    expect(done.nbChunks).toBe(pages.reduce((sum, page) => sum + page.nbChunks, 0));
    expect(done.nbChunks).toBeGreaterThan(during.nbChunks);
    expect((await datastore.stats()).chunks).toBe(done.nbChunks);
    expect((await ragdesk.datasources.crawl(siteId))?.lastResult).toMatchObject({ added: 4, changed: 0 });
  });

  it('removes the pages it stored when the crawl then fails, and the count goes back', async () => {
    // The first three pages fit the site's text limit; the fourth passes it.
    const firstThree = ['/p1', '/p2', '/p3'].reduce((sum, path) => sum + TEXTS[path]!.length, 0);
    const { ragdesk, datastore, siteId } = await start({ maxExtractedChars: firstThree + 60 });
    await expect.poll(async () => (await ragdesk.datasources.get(siteId)).nbChunks, { timeout: 30_000 }).toBeGreaterThan(0);
    expect((await ragdesk.datasources.list(datastore.id)).some((source) => source.groupId === siteId)).toBe(true);

    release!();
    const failed = await ragdesk.datasources.waitUntilSettled(siteId, 60_000);
    expect(failed.status).toBe('error');
    expect(failed.error).toMatch(/maxExtractedChars/);
    expect((await ragdesk.datasources.list(datastore.id)).filter((source) => source.groupId === siteId)).toEqual([]);
    expect(failed.nbChunks).toBe(0);
    expect((await datastore.stats()).chunks).toBe(0);
    expect(await datastore.query({ query: 'LIVE-ALPHA', mode: 'lexical' })).toEqual([]);
  });
});
