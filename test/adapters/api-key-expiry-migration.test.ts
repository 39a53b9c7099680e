/**
 * The API key expiry migration keeps the keys written before it: a database is built by the
 * migrations before it alone, a key row is written as that version wrote it, then the current
 * store opens it. The key reads back unchanged (no expiry), and keys with an expiry work beside it.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresStore } from '../../adapters/postgres/index.js';
import { migrate as migratePostgres, API_KEY_EXPIRY_VERSION as POSTGRES_VERSION } from '../../adapters/postgres/schema.js';
import { sqliteStore } from '../../adapters/sqlite/index.js';
import { migrate as migrateSqlite, API_KEY_EXPIRY_VERSION as SQLITE_VERSION, SCHEMA_VERSION } from '../../adapters/sqlite/schema.js';
import type { Store } from '../../src/ports/store.js';
import { isoAt, makeApiKey } from '../../src/testing/fixtures.js';
import { freshSchema, startPgliteServer, type PgliteServer } from '../helpers/pglite-server.js';
import { tempDir } from '../helpers/setups.js';

const OLD_KEY = makeApiKey('alice', { name: 'old ci', datastoreIds: ['ds-1'], lastUsedAt: isoAt(3) });
const COLUMNS = ['id', 'owner_id', 'name', 'hash', 'prefix', 'scopes', 'datastore_ids', 'created_at', 'last_used_at', 'revoked_at'];

function oldValues(lists: (values: string[]) => unknown): unknown[] {
  return [
    OLD_KEY.id,
    OLD_KEY.ownerId,
    OLD_KEY.name,
    OLD_KEY.hash,
    OLD_KEY.prefix,
    lists(OLD_KEY.scopes),
    lists(OLD_KEY.datastoreIds!),
    OLD_KEY.createdAt,
    OLD_KEY.lastUsedAt,
    OLD_KEY.revokedAt,
  ];
}

async function checkMigrated(store: Store): Promise<void> {
  expect(await store.getApiKey(OLD_KEY.id)).toEqual(OLD_KEY);
  expect(await store.listApiKeys({ ownerId: 'alice' })).toEqual([OLD_KEY]);
  const expiring = makeApiKey('alice', { name: 'new', createdAt: isoAt(4), expiresAt: isoAt(100) });
  await store.createApiKey(expiring);
  expect(await store.getApiKey(expiring.id)).toEqual(expiring);
  expect(await store.updateApiKey(OLD_KEY.id, { revokedAt: isoAt(5) })).toEqual({ ...OLD_KEY, revokedAt: isoAt(5) });
}

describe('API key expiry migration', () => {
  let temp: ReturnType<typeof tempDir>;
  let pglite: PgliteServer;
  beforeAll(async () => {
    temp = tempDir('ragdesk-key-expiry-');
    pglite = await startPgliteServer();
  });
  afterAll(async () => {
    await pglite?.close();
    temp?.remove();
  });

  it('on SQLite: keys written before it read back unchanged', async () => {
    const path = join(temp.dir, 'old.db');
    const db = new Database(path);
    migrateSqlite(db, SQLITE_VERSION - 1);
    db.prepare(`INSERT INTO api_keys (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`).run(
      ...(oldValues((values) => JSON.stringify(values)) as (string | null)[]),
    );
    expect(db.prepare('SELECT name FROM pragma_table_info(?)').all('api_keys')).not.toContainEqual({ name: 'expires_at' });
    db.close();
    const store = sqliteStore({ path });
    try {
      await checkMigrated(store);
    } finally {
      await store.close();
    }
    const check = new Database(path, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    check.close();
  });

  it('on Postgres: keys written before it read back unchanged', async () => {
    const schema = freshSchema('key_expiry');
    await migratePostgres(pglite.pool, schema, POSTGRES_VERSION - 1);
    const s = pg.escapeIdentifier(schema);
    await pglite.pool.query(
      `INSERT INTO ${s}.api_keys (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`,
      oldValues((values) => values),
    );
    const store = await postgresStore({ pool: pglite.pool, schema });
    try {
      await checkMigrated(store);
    } finally {
      await store.close();
    }
  });
});
