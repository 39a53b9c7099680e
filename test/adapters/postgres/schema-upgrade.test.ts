/**
 * A Postgres schema made before metadata filters and the script split opens unchanged: its rows,
 * written with the older tables, are filtered by metadata and found by a Chinese or Korean query
 * once the store has applied the newer migrations.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { postgresStore } from '../../../adapters/postgres/index.js';
import { METADATA_FILTERS_MIGRATION, migrate, SCHEMA_VERSION } from '../../../adapters/postgres/schema.js';
import { freshSchema, startPgliteServer, type PgliteServer } from '../../helpers/pglite-server.js';

let pglite: PgliteServer;
beforeAll(async () => {
  pglite = await startPgliteServer();
});
afterAll(async () => {
  await pglite?.close();
});

it('upgrades a schema of the version before metadata filters, keeping its rows searchable and filterable', async () => {
  const schema = freshSchema('upgrade');
  const s = pg.escapeIdentifier(schema);
  await migrate(pglite.pool, schema, METADATA_FILTERS_MIGRATION - 1);
  const now = '2026-01-01T00:00:00.000Z';
  await pglite.pool.query(
    `INSERT INTO ${s}.datastores (id, owner_id, name, description, embedding_model, embedding_dimensions, created_at, updated_at)
     VALUES ('ds', NULL, 'old', '', 'local', 3, $1, $1)`,
    [now],
  );
  const documents = [
    ['zh', { lang: 'zh', year: 2019 }, '熊猫主要生活在四川的竹林里。'],
    ['ko', { lang: 'ko', year: 2023 }, '김치는 배추와 고춧가루로 만듭니다.'],
    ['en', { lang: 'en', year: 2024 }, 'Pandas eat bamboo in the forests of Sichuan.'],
  ] as const;
  for (const [id, metadata, text] of documents) {
    await pglite.pool.query(
      `INSERT INTO ${s}.datasources (id, datastore_id, type, name, status, config, metadata, nb_chunks, nb_tokens, text_size, created_at, updated_at)
       VALUES ($1, 'ds', 'text', $1, 'synched', '{}', $2, 1, 10, 20, $3, $3)`,
      [id, JSON.stringify(metadata), now],
    );
    await pglite.pool.query(
      `INSERT INTO ${s}.chunks (id, datastore_id, datasource_id, position, token_count, char_offset, hash, metadata, text, embedding)
       VALUES ($1, 'ds', $2, 0, 10, 0, $1, '{}', $3, '{0,0,1}')`,
      [`chunk-${id}`, id, text],
    );
  }

  const store = await postgresStore({ pool: pglite.pool, schema });
  try {
    const version = await pglite.pool.query<{ version: number }>(`SELECT max(version) AS version FROM ${s}.schema_migrations`);
    expect(version.rows[0]!.version).toBe(SCHEMA_VERSION);
    expect((await store.listDatasourceIdsMatching!('ds', { key: 'year', gte: 2020 })).sort()).toEqual(['en', 'ko']);
    expect(await store.listDatasourceIdsMatching!('ds', { key: 'lang', eq: 'zh' })).toEqual(['zh']);
    expect((await store.searchText({ datastoreId: 'ds', query: '熊猫', topK: 3 })).map((hit) => hit.id)).toEqual(['chunk-zh']);
    expect((await store.searchText({ datastoreId: 'ds', query: '김치', topK: 3 })).map((hit) => hit.id)).toEqual(['chunk-ko']);
    expect((await store.searchText({ datastoreId: 'ds', query: 'bamboo', topK: 3 })).map((hit) => hit.id)).toEqual(['chunk-en']);
  } finally {
    await store.close();
  }
});
