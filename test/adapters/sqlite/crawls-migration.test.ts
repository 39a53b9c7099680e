import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { sqliteStore } from '../../../adapters/sqlite/index.js';
import { CRAWLS_VERSION, migrate } from '../../../adapters/sqlite/schema.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ragdesk-crawls-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('opens a database made before crawl records with its datasources unchanged, and records crawls in it', async () => {
  const path = join(dir, 'old.db');
  const old = new Database(path);
  migrate(old, CRAWLS_VERSION - 1);
  old.exec(`
    INSERT INTO datastores (id, name, description, embedding_model, embedding_dimensions, created_at, updated_at)
      VALUES ('ds-old', 'Old', '', 'test-embedding-8', 8, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z');
    INSERT INTO datasources (id, datastore_id, type, name, status, config, metadata, nb_chunks, nb_tokens, text_size, created_at, updated_at)
      VALUES ('src-site', 'ds-old', 'web_site', '', 'synched', '{"source_url":"https://old.test/"}', '{}', 0, 0, 0,
        '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z');
  `);
  expect(old.prepare("SELECT name FROM sqlite_master WHERE name = 'crawl_pages'").get()).toBeUndefined();
  old.close();

  const store = sqliteStore({ path });
  try {
    const site = await store.getDatasource('src-site');
    expect(site).toMatchObject({ type: 'web_site', status: 'synched', config: { source_url: 'https://old.test/' } });
    expect(await store.getCrawlStates(['src-site'])).toEqual([]);
    const page = {
      datasourceId: 'src-site',
      url: 'https://old.test/a',
      status: 'fetched' as const,
      reason: null,
      error: null,
      pageId: null,
      etag: '"e1"',
      lastModified: null,
      contentHash: 'h',
      updatedAt: '2025-01-02T00:00:00.000Z',
    };
    await store.putCrawlPages([page]);
    expect(await store.listCrawlPages('src-site', { offset: 0, limit: 5 })).toEqual({ items: [page], total: 1 });
  } finally {
    await store.close();
  }
});
