import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webLoader } from '../../adapters/web/index.js';
import { startHttpServer, type TestHttpServer } from '../helpers/http-server.js';
import { openFixture, type Fixture } from './fixture.js';
import { startServer, type RunningServer } from './servers.js';

interface CrawlWire {
  found: number;
  fetched: number;
  unchanged: number;
  skipped: { robots: number; type: number; limit: number };
  failed: number;
  finishedAt: string | null;
  lastResult: { added: number; changed: number; removed: number; unchanged: number; failed: number } | null;
  refresh: { every: string } | null;
  nextRefreshAt: string | null;
}
interface DatasourceWire {
  id: string;
  name: string;
  status: string;
  crawl?: CrawlWire;
}
interface PageWire {
  url: string;
  status: string;
  reason: string | null;
  error: string | null;
  pageId: string | null;
}
interface PageList {
  items: PageWire[];
  total: number;
  offset: number;
  limit: number;
}

const page = (title: string, links: string[] = []): string =>
  `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>The ${title} page of the local test site.</p>${links
    .map((link) => `<a href="${link}">${link}</a>`)
    .join(' ')}</main></body></html>`;

describe('crawl progress and GET /api/datasources/{id}/pages', () => {
  let fixture: Fixture;
  let server: RunningServer;
  let site: TestHttpServer;
  let datastoreId: string;
  let siteId: string;

  const call = async <T>(method: string, path: string, key: string, body?: unknown) => {
    const response = await fetch(server.origin + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as T & { error?: { code: string; details: Record<string, unknown> } } };
  };
  const settled = async (id: string): Promise<DatasourceWire> => {
    for (;;) {
      const { body } = await call<DatasourceWire>('GET', `/api/datasources/${id}`, fixture.alice);
      if (body.status !== 'pending' && body.status !== 'running') return body;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  beforeAll(async () => {
    site = await startHttpServer((request, response) => {
      const path = request.url ?? '/';
      const html = (body: string) => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(body);
      };
      if (path === '/robots.txt') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end('User-agent: *\nDisallow: /private\n');
      } else if (path === '/') html(page('Home', ['/a', '/b', '/c', '/private/x', '/doc.pdf', '/gone']));
      else if (path === '/a' || path === '/b') html(page(path.slice(1).toUpperCase()));
      else if (path === '/c') html(page('C', ['/d', '/e']));
      else if (path === '/doc.pdf') {
        response.writeHead(200, { 'content-type': 'application/pdf' });
        response.end('%PDF-1.4');
      } else {
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('not found');
      }
    });
    fixture = await openFixture({ web: webLoader({ allowPrivateUrls: ['127.0.0.1'], timeoutMs: 5_000 }) });
    server = await startServer('node:http', fixture.handler);
    datastoreId = (await fixture.ragdesk.datastores.create({ name: 'crawls' }, { ownerId: 'alice' })).id;
    const created = await call<DatasourceWire>('POST', '/api/datasources', fixture.alice, {
      type: 'web_site',
      datastoreId,
      config: { source_url: `${site.origin}/`, max_pages: 6 },
    });
    expect(created.status).toBe(200);
    siteId = created.body.id;
  });
  afterAll(async () => {
    await server.close();
    await fixture.close();
    await site.close();
  });

  it('counts what the crawl found, fetched, skipped and failed, and names the site by its URL', async () => {
    const done = await settled(siteId);
    expect(done.status).toBe('synched');
    expect(done.name).toBe(`127.0.0.1:${site.port}`);
    expect(done.crawl).toMatchObject({
      found: 9,
      fetched: 4,
      unchanged: 0,
      skipped: { robots: 1, type: 1, limit: 2 },
      failed: 1,
      refresh: null,
      nextRefreshAt: null,
      lastResult: { added: 4, changed: 0, removed: 0, unchanged: 0, failed: 1 },
    });
    expect(done.crawl?.finishedAt).not.toBeNull();
    const listed = await call<DatasourceWire[]>('GET', `/api/datasources?datastoreId=${datastoreId}`, fixture.alice);
    expect(listed.body.find((entry) => entry.id === siteId)?.crawl?.fetched).toBe(4);
    // The site's pages are datasources of their own, without a crawl of theirs.
    expect(listed.body.filter((entry) => entry.id !== siteId).every((entry) => entry.crawl === undefined)).toBe(true);
  });

  it("lists the crawl's URLs by URL, a page at a time, with status and error", async () => {
    const first = await call<PageList>('GET', `/api/datasources/${siteId}/pages?limit=4`, fixture.alice);
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(9);
    expect(first.body.offset).toBe(0);
    expect(first.body.limit).toBe(4);
    const rest = await call<PageList>('GET', `/api/datasources/${siteId}/pages?offset=4&limit=50`, fixture.alice);
    const all = [...first.body.items, ...rest.body.items];
    const paths = all.map((entry) => new URL(entry.url).pathname);
    expect(paths).toEqual(['/', '/a', '/b', '/c', '/d', '/doc.pdf', '/e', '/gone', '/private/x']);
    const byPath = new Map(all.map((entry) => [new URL(entry.url).pathname, entry]));
    expect(byPath.get('/a')).toMatchObject({ status: 'fetched', reason: null, error: null });
    expect(byPath.get('/a')?.pageId).toMatch(/\S/);
    expect(byPath.get('/private/x')).toMatchObject({ status: 'skipped', reason: 'robots', pageId: null });
    expect(byPath.get('/doc.pdf')).toMatchObject({ status: 'skipped', reason: 'type' });
    expect(byPath.get('/d')).toMatchObject({ status: 'skipped', reason: 'limit' });
    expect(byPath.get('/gone')).toMatchObject({ status: 'failed', reason: 'not_found' });
    expect(byPath.get('/gone')?.error).toContain('404');
    // The page datasource each fetched URL points at is one of the site's.
    const child = await call<DatasourceWire>('GET', `/api/datasources/${byPath.get('/a')!.pageId}`, fixture.alice);
    expect(child.body.name).toBe('A');
  });

  it('answers another owner, and an unknown id, with the same 404; refuses a bad paging value naming it', async () => {
    const foreign = await call<PageList>('GET', `/api/datasources/${siteId}/pages`, fixture.bob);
    const unknown = await call<PageList>('GET', '/api/datasources/src_unknown1234/pages', fixture.bob);
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(foreign.body.error?.code).toBe(unknown.body.error?.code);
    expect((await call<DatasourceWire>('GET', `/api/datasources/${siteId}`, fixture.bob)).status).toBe(404);
    const bad = await call<PageList>('GET', `/api/datasources/${siteId}/pages?limit=0`, fixture.alice);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error?.details)).toContain('limit');
    const stray = await call<PageList>('GET', `/api/datasources/${siteId}/pages?page=2`, fixture.alice);
    expect(stray.status).toBe(400);
  });

  it('sets, shows and stops a refresh schedule through PATCH, refusing a bad one naming the field', async () => {
    const set = await call<DatasourceWire>('PATCH', `/api/datasources/${siteId}`, fixture.alice, { refresh: { every: 'daily' } });
    expect(set.status).toBe(200);
    expect(set.body.crawl?.refresh).toEqual({ every: 'daily' });
    const next = Date.parse(set.body.crawl!.nextRefreshAt!);
    const finished = Date.parse(set.body.crawl!.finishedAt!);
    expect(next - finished).toBeGreaterThan(23 * 3_600_000);
    expect(next - finished).toBeLessThanOrEqual(24 * 3_600_000);
    const bad = await call<DatasourceWire>('PATCH', `/api/datasources/${siteId}`, fixture.alice, { refresh: { every: '1s' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error?.details)).toContain('refresh');
    const stopped = await call<DatasourceWire>('PATCH', `/api/datasources/${siteId}`, fixture.alice, { refresh: null });
    expect(stopped.body.crawl).toMatchObject({ refresh: null, nextRefreshAt: null });
  });
});
