import { expect } from 'vitest';
import type { CrawlStore } from '../../src/ports/store/crawl-store.js';

/**
 * What a store opened on an older schema must show of the crawl page it held (`src-site`,
 * `https://old.test/a`, written before fetch times): the row unchanged with no `fetchedAt`, and a
 * fetch time kept once written.
 */
export async function expectCrawlPageUpgraded(store: Pick<CrawlStore, 'listCrawlPages' | 'putCrawlPages'>): Promise<void> {
  const before = {
    datasourceId: 'src-site',
    url: 'https://old.test/a',
    status: 'fetched' as const,
    reason: null,
    error: null,
    pageId: 'src-page-a',
    etag: '"e1"',
    lastModified: null,
    contentHash: 'h',
    updatedAt: '2025-01-02T00:00:00.000Z',
  };
  expect(await store.listCrawlPages('src-site', { offset: 0, limit: 5 })).toEqual({ items: [before], total: 1 });
  const after = { ...before, fetchedAt: '2025-01-03T00:00:00.000Z', updatedAt: '2025-01-03T00:00:01.000Z' };
  await store.putCrawlPages([after]);
  expect(await store.listCrawlPages('src-site', { offset: 0, limit: 5 })).toEqual({ items: [after], total: 1 });
}
