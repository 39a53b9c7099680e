import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { postgresStore } from '../../../adapters/postgres/index.js';
import { CRAWL_FETCHED_AT_VERSION, migrate } from '../../../adapters/postgres/schema.js';
import { freshSchema, startPgliteServer, type PgliteServer } from '../../helpers/pglite-server.js';
import { expectCrawlPageUpgraded } from '../../helpers/crawl-page-upgrade.js';

/** Crawl pages written before fetch times were kept read as they were, and keep fetch times after. */
describe('postgres: migrating crawl pages to fetch times', () => {
  let pglite: PgliteServer;
  beforeAll(async () => {
    pglite = await startPgliteServer();
  });
  afterAll(async () => {
    await pglite?.close();
  });

  it('opens the old rows unchanged (no fetchedAt) and stores fetchedAt from then on', async () => {
    const schema = freshSchema('crawl-fetched-at');
    const s = pg.escapeIdentifier(schema);
    await migrate(pglite.pool, schema, CRAWL_FETCHED_AT_VERSION - 1);
    await pglite.pool.query(`
      INSERT INTO ${s}.datastores (id, name, description, embedding_model, embedding_dimensions, created_at, updated_at)
        VALUES ('ds-old', 'Old', '', 'test-embedding-8', 8, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z');
      INSERT INTO ${s}.datasources (id, datastore_id, type, name, status, config, metadata, nb_chunks, nb_tokens, text_size, created_at, updated_at)
        VALUES ('src-site', 'ds-old', 'web_site', '', 'synched', '{}', '{}', 0, 0, 0, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z');
      INSERT INTO ${s}.crawl_pages (datasource_id, url, status, reason, error, page_id, etag, last_modified, content_hash, updated_at)
        VALUES ('src-site', 'https://old.test/a', 'fetched', NULL, NULL, 'src-page-a', '"e1"', NULL, 'h', '2025-01-02T00:00:00.000Z');
    `);
    const store = await postgresStore({ pool: pglite.pool, schema });
    try {
      await expectCrawlPageUpgraded(store);
    } finally {
      await store.close();
      await pglite.pool.query(`DROP SCHEMA ${s} CASCADE`);
    }
  });
});
