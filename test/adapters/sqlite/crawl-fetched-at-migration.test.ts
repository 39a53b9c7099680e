import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { sqliteStore } from '../../../adapters/sqlite/index.js';
import { CRAWL_FETCHED_AT_VERSION, migrate } from '../../../adapters/sqlite/schema.js';
import { expectCrawlPageUpgraded } from '../../helpers/crawl-page-upgrade.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ragdesk-fetched-at-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('opens crawl pages written before fetch times unchanged (no fetchedAt), and keeps fetch times after', async () => {
  const path = join(dir, 'old.db');
  const old = new Database(path);
  migrate(old, CRAWL_FETCHED_AT_VERSION - 1);
  old.exec(`
    INSERT INTO datastores (id, name, description, embedding_model, embedding_dimensions, created_at, updated_at)
      VALUES ('ds-old', 'Old', '', 'test-embedding-8', 8, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z');
    INSERT INTO datasources (id, datastore_id, type, name, status, config, metadata, nb_chunks, nb_tokens, text_size, created_at, updated_at)
      VALUES ('src-site', 'ds-old', 'web_site', '', 'synched', '{"sitemap":"https://old.test/sitemap.xml"}', '{}', 0, 0, 0,
        '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z');
    INSERT INTO crawl_pages (datasource_id, url, status, reason, error, page_id, etag, last_modified, content_hash, updated_at)
      VALUES ('src-site', 'https://old.test/a', 'fetched', NULL, NULL, 'src-page-a', '"e1"', NULL, 'h', '2025-01-02T00:00:00.000Z');
  `);
  expect(old.prepare("SELECT 1 FROM pragma_table_info('crawl_pages') WHERE name = 'fetched_at'").get()).toBeUndefined();
  old.close();

  const store = sqliteStore({ path });
  try {
    await expectCrawlPageUpgraded(store);
  } finally {
    await store.close();
  }
});
