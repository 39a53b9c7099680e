/** Store conformance, crawl part (`CrawlStore`): crawl states and pages of web datasources. */
import { describe, expect, it } from 'vitest';
import type { CrawlPageRecord, CrawlState, RetrievalStore } from '../ports/store.js';
import { isoAt, makeDatasource, makeDatastore } from './fixtures.js';
import type { StoreSuiteContext } from './store-harness.js';

function makeState(datasourceId: string, overrides: Partial<CrawlState> = {}): CrawlState {
  return {
    datasourceId,
    counts: { found: 3, fetched: 1, unchanged: 0, skipped: { robots: 1, type: 0, limit: 0 }, failed: 1 },
    startedAt: isoAt(0),
    finishedAt: null,
    lastResult: null,
    ...overrides,
  };
}

function makePage(datasourceId: string, url: string, overrides: Partial<CrawlPageRecord> = {}): CrawlPageRecord {
  return {
    datasourceId,
    url,
    status: 'fetched',
    reason: null,
    error: null,
    pageId: null,
    etag: null,
    lastModified: null,
    contentHash: null,
    updatedAt: isoAt(1),
    ...overrides,
  };
}

export function describeCrawlConformance(context: { store: StoreSuiteContext<RetrievalStore>['store'] }): void {
  const store = () => context.store();

  async function site(name: string): Promise<string> {
    const datastore = makeDatastore({ name: `Crawls ${name}` });
    if (!(await store().getDatastore(datastore.id))) await store().createDatastore(datastore);
    const source = makeDatasource(datastore, { name, type: 'web_site', config: { source_url: `https://${name}.test/` } });
    await store().createDatasource(source);
    return source.id;
  }

  describe('crawls', () => {
    it('keeps one crawl state per datasource, replaced whole, and ignores unknown datasources', async () => {
      const id = await site('alpha');
      const other = await site('beta');
      expect(await store().getCrawlStates([id])).toEqual([]);
      await store().putCrawlState(makeState(id));
      const finished = makeState(id, {
        counts: { found: 9, fetched: 7, unchanged: 1, skipped: { robots: 0, type: 1, limit: 0 }, failed: 0 },
        finishedAt: isoAt(30),
        lastResult: { added: 2, changed: 3, removed: 1, unchanged: 1, failed: 0 },
      });
      await store().putCrawlState(finished);
      await store().putCrawlState(makeState(other));
      await store().putCrawlState(makeState('src-unknown'));
      expect(await store().getCrawlStates([other, 'src-unknown', id])).toEqual([makeState(other), finished]);
    });

    it('upserts pages by URL, lists them by URL with a total, and deletes by URL', async () => {
      const id = await site('gamma');
      const other = await site('delta');
      await store().putCrawlPages([
        makePage(id, 'https://gamma.test/b'),
        makePage(id, 'https://gamma.test/a', {
          etag: '"v1"',
          lastModified: 'Wed, 01 Jan 2025 00:00:00 GMT',
          contentHash: 'h1',
          fetchedAt: isoAt(0),
        }),
        makePage(id, 'https://gamma.test/c', { status: 'failed', reason: 'upstream_failed', error: 'HTTP 500', fetchedAt: null }),
        makePage(other, 'https://gamma.test/a'),
        makePage('src-unknown', 'https://gamma.test/z'),
      ]);
      await store().putCrawlPages([makePage(id, 'https://gamma.test/b', { status: 'skipped', reason: 'robots', pageId: 'src-page' })]);
      const first = await store().listCrawlPages(id, { offset: 0, limit: 2 });
      expect(first.total).toBe(3);
      expect(first.items).toEqual([
        // fetchedAt is optional in the port; a store that keeps it answers it as written.
        makePage(id, 'https://gamma.test/a', {
          etag: '"v1"',
          lastModified: 'Wed, 01 Jan 2025 00:00:00 GMT',
          contentHash: 'h1',
          fetchedAt: isoAt(0),
        }),
        makePage(id, 'https://gamma.test/b', { status: 'skipped', reason: 'robots', pageId: 'src-page' }),
      ]);
      const rest = await store().listCrawlPages(id, { offset: 2, limit: 2 });
      expect(rest).toEqual({
        total: 3,
        items: [makePage(id, 'https://gamma.test/c', { status: 'failed', reason: 'upstream_failed', error: 'HTTP 500' })],
      });
      await store().deleteCrawlPages(id, ['https://gamma.test/a', 'https://gamma.test/none']);
      expect((await store().listCrawlPages(id, { offset: 0, limit: 10 })).items.map((page) => page.url)).toEqual([
        'https://gamma.test/b',
        'https://gamma.test/c',
      ]);
      expect((await store().listCrawlPages(other, { offset: 0, limit: 10 })).total).toBe(1);
      expect(await store().listCrawlPages('src-unknown', { offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
    });

    it('deletes the crawl state and pages with their datasource', async () => {
      const id = await site('epsilon');
      await store().putCrawlState(makeState(id));
      await store().putCrawlPages([makePage(id, 'https://epsilon.test/')]);
      await store().deleteDatasource(id);
      expect(await store().getCrawlStates([id])).toEqual([]);
      expect((await store().listCrawlPages(id, { offset: 0, limit: 10 })).total).toBe(0);
    });
  });
}
