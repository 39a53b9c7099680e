/**
 * The per-owner names migration carries existing data, on SQLite and on Postgres (PGlite over the
 * wire): a database is built by the migrations before it alone, filled with rows as the code of
 * that version wrote them (a public agent with a handle, a conversation with its channel and its
 * messages, one answer marked), then opened by the current store. The rows read back intact
 * (channel and feedback included, still filtered and listed), and the new rules hold on them:
 * another owner may take the handle (not as a second public agent) and the conversation id on its
 * own agent, without reaching the first owner's messages.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresStore } from '../../adapters/postgres/index.js';
import { migrate as migratePostgres, PER_OWNER_NAMES_VERSION as POSTGRES_VERSION } from '../../adapters/postgres/schema.js';
import { sqliteStore } from '../../adapters/sqlite/index.js';
import { migrate as migrateSqlite, PER_OWNER_NAMES_VERSION as SQLITE_VERSION, SCHEMA_VERSION } from '../../adapters/sqlite/schema.js';
import { RagdeskError } from '../../src/errors.js';
import type { Store } from '../../src/ports/store.js';
import { isoAt, makeAgent, makeConversation, makeMessage } from '../../src/testing/fixtures.js';
import { freshSchema, startPgliteServer, type PgliteServer } from '../helpers/pglite-server.js';
import { tempDir } from '../helpers/setups.js';

/** Rows as the version before the migration wrote them: [table, columns, values]. */
const OLD_ROWS: [string, string[], unknown[]][] = [
  [
    'agents',
    ['id', 'owner_id', 'name', 'description', 'model_name', 'temperature', 'visibility', 'created_at', 'updated_at', 'handle', 'settings'],
    ['agent-alice', 'alice', 'Support', 'd', 'gpt_3_5_turbo', 0, 'public', isoAt(1), isoAt(1), 'support', '{}'],
  ],
  [
    'agents',
    ['id', 'owner_id', 'name', 'description', 'model_name', 'temperature', 'visibility', 'created_at', 'updated_at', 'handle', 'settings'],
    ['agent-bob', 'bob', 'Helper', 'd', 'gpt_3_5_turbo', 0, 'private', isoAt(2), isoAt(2), null, '{}'],
  ],
  [
    'conversations',
    ['id', 'agent_id', 'visitor_id', 'created_at', 'updated_at', 'contact', 'channel'],
    ['conv-1', 'agent-alice', 'visitor-a', isoAt(3), isoAt(5), '{"email":"ada@example.com"}', 'website'],
  ],
  [
    'messages',
    ['id', 'conversation_id', 'role', 'text', 'sources', 'visitor_id', 'created_at'],
    ['m-1', 'conv-1', 'user', 'SECRET QUESTION OF ALICE', '[]', 'visitor-a', isoAt(4)],
  ],
  [
    'messages',
    ['id', 'conversation_id', 'role', 'text', 'sources', 'visitor_id', 'created_at', 'feedback', 'feedback_comment', 'feedback_at'],
    ['m-2', 'conv-1', 'assistant', 'answer of alice', '[]', 'visitor-a', isoAt(5), 'bad', 'Off topic', isoAt(6)],
  ],
];

async function expectConflict(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(RagdeskError.isInstance(error) && error.code).toBe('conflict');
}

/** What the migrated store must show and allow; shared by both adapters. */
async function checkMigrated(store: Store): Promise<void> {
  const alice = await store.getAgent('agent-alice');
  expect([alice?.ownerId, alice?.handle, alice?.visibility]).toEqual(['alice', 'support', 'public']);
  const alices = {
    id: 'conv-1',
    agentId: 'agent-alice',
    visitorId: 'visitor-a',
    createdAt: isoAt(3),
    updatedAt: isoAt(5),
    contact: { email: 'ada@example.com' },
    channel: 'website',
  };
  expect(await store.getConversation('agent-alice', 'conv-1')).toEqual(alices);
  const texts = async (agentId: string) => (await store.listMessages(agentId, 'conv-1')).map((message) => message.text);
  expect(await texts('agent-alice')).toEqual(['answer of alice', 'SECRET QUESTION OF ALICE']);
  // What the readable-conversations migration added comes through the rebuild.
  expect((await store.getMessage('m-2'))?.feedback).toEqual({ value: 'bad', comment: 'Off topic', createdAt: isoAt(6) });
  expect(await store.getMessageConversation('m-2')).toEqual(alices);
  const marked = await store.findConversations({ agentId: 'agent-alice', limit: 5, feedback: 'bad', channel: 'website' });
  expect(marked.map((record) => record.id)).toEqual(['conv-1']);

  // Another owner takes the handle (privately) and the conversation id (on its own agent).
  expect((await store.updateAgent('agent-bob', { handle: 'support' }))?.handle).toBe('support');
  await expectConflict(store.createAgent(makeAgent({ id: 'agent-bob-2', ownerId: 'bob', handle: 'support' })));
  await expectConflict(store.createAgent(makeAgent({ id: 'agent-carol', ownerId: 'carol', handle: 'support', visibility: 'public' })));
  const bobs = makeConversation({ id: 'agent-bob' }, 10, { id: 'conv-1', visitorId: 'visitor-b' });
  await store.createConversation(bobs);
  expect(await texts('agent-bob')).toEqual([]);
  await store.appendMessages('agent-bob', 'conv-1', [makeMessage(bobs, 11, 'user', { id: 'm-3', text: 'question of bob' })]);
  expect(await texts('agent-bob')).toEqual(['question of bob']);
  expect(await texts('agent-alice')).toEqual(['answer of alice', 'SECRET QUESTION OF ALICE']);
  await expectConflict(store.createConversation(makeConversation({ id: 'agent-alice' }, 12, { id: 'conv-1' })));
  expect((await store.listConversationsWithId('conv-1')).map((record) => record.agentId)).toEqual(['agent-alice', 'agent-bob']);
  expect(await store.findConversations({ agentId: 'agent-bob', limit: 5, feedback: 'any' })).toEqual([]);

  // The cascade follows the new keys: deleting one agent leaves the other's conversation.
  expect(await store.deleteAgent('agent-alice')).toBe(true);
  expect(await texts('agent-alice')).toEqual([]);
  expect(await texts('agent-bob')).toEqual(['question of bob']);
}

describe('per-owner names migration on SQLite', () => {
  let temp: ReturnType<typeof tempDir>;
  beforeAll(() => {
    temp = tempDir('ragdesk-owner-names-');
  });
  afterAll(() => temp?.remove());

  const schemaOf = (file: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name').all();
    } finally {
      db.close();
    }
  };

  it('keeps agents, conversations and messages written before it, and the new rules hold on them', async () => {
    const path = join(temp.dir, 'old.db');
    const db = new Database(path);
    db.pragma('foreign_keys = ON');
    migrateSqlite(db, SQLITE_VERSION - 1);
    expect(db.pragma('user_version', { simple: true })).toBe(SQLITE_VERSION - 1);
    for (const [table, columns, values] of OLD_ROWS) {
      // JSON text for lists on SQLite, a text[] on Postgres.
      const withLists = table === 'agents' ? [...columns, 'datastore_ids'] : columns;
      const row = table === 'agents' ? [...values, '[]'] : values;
      db.prepare(`INSERT INTO ${table} (${withLists.join(', ')}) VALUES (${withLists.map(() => '?').join(', ')})`).run(...row);
    }
    db.close();

    const store = sqliteStore({ path });
    try {
      await checkMigrated(store);
    } finally {
      await store.close();
    }
    const check = new Database(path, { readonly: true });
    try {
      expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(check.pragma('foreign_key_check')).toEqual([]);
    } finally {
      check.close();
    }
    const fresh = join(temp.dir, 'fresh.db');
    await sqliteStore({ path: fresh }).close();
    expect(schemaOf(path)).toEqual(schemaOf(fresh));
  });
});

describe('per-owner names migration on Postgres', () => {
  let pglite: PgliteServer;
  beforeAll(async () => {
    pglite = await startPgliteServer();
  });
  afterAll(async () => {
    await pglite?.close();
  });

  it('keeps agents, conversations and messages written before it, and the new rules hold on them', async () => {
    const schema = freshSchema('owner_names');
    await migratePostgres(pglite.pool, schema, POSTGRES_VERSION - 1);
    const s = pg.escapeIdentifier(schema);
    for (const [table, columns, values] of OLD_ROWS) {
      const withLists = table === 'agents' ? [...columns, 'datastore_ids'] : columns;
      const row = table === 'agents' ? [...values, []] : values;
      await pglite.pool.query(
        `INSERT INTO ${s}.${table} (${withLists.join(', ')}) VALUES (${withLists.map((_, i) => `$${i + 1}`).join(', ')})`,
        row,
      );
    }
    const store = await postgresStore({ pool: pglite.pool, schema });
    try {
      await checkMigrated(store);
    } finally {
      await store.close();
    }
  });
});
