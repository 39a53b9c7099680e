import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { SCHEMA_VERSION, sqliteStore } from '../../../adapters/sqlite/index.js';
import { CONVERSATION_READING_VERSION } from '../../../adapters/sqlite/schema.js';
import type { Store } from '../../../src/ports/store.js';
import {
  isoAt,
  makeAgent,
  makeApiKey,
  makeChunk,
  makeChunks,
  makeConversation,
  makeDatasource,
  makeDatastore,
  makeJob,
  makeMessage,
} from '../../../src/testing/fixtures.js';
import { samplePassages } from '../../../src/testing/sample-texts.js';
import { setSliceClock, steppingClock } from '../../../src/util/slice-clock.js';

let dir: string;
let path: string;
const opened: Store[] = [];
const open = (options: Partial<Parameters<typeof sqliteStore>[0]> = {}) => {
  const store = sqliteStore({ path, ...options } as Parameters<typeof sqliteStore>[0]);
  opened.push(store);
  return store;
};
const pragma = (db: Database.Database, name: string) => db.pragma(name, { simple: true });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ragdesk-sqlite-'));
  path = join(dir, 'nested', 'store.db');
});

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One datastore, two datasources, some chunks, a delete: enough to touch every table and trigger. */
async function fill(store: Store): Promise<void> {
  const datastore = makeDatastore();
  const a = makeDatasource(datastore, { name: 'a.md' });
  const b = makeDatasource(datastore, { name: 'b.md', customId: 'tenant' });
  await store.createDatastore(datastore);
  await store.createDatasource(a);
  await store.createDatasource(b);
  await store.replaceChunks(a.id, makeChunks(a, samplePassages(30, 1)));
  await store.replaceChunks(b.id, makeChunks(b, samplePassages(30, 2)));
  await store.replaceChunks(a.id, makeChunks(a, samplePassages(20, 3)));
  await store.deleteDatasource(b.id);
}

describe('sqliteStore', () => {
  it('creates the file (and its directory) with the schema version, WAL and 16 KiB pages', async () => {
    await fill(open());
    const db = new Database(path, { readonly: true });
    try {
      expect(pragma(db, 'user_version')).toBe(SCHEMA_VERSION);
      expect(pragma(db, 'journal_mode')).toBe('wal');
      expect(pragma(db, 'page_size')).toBe(16384);
    } finally {
      db.close();
    }
  });

  it('migrates once: reopening changes neither the version nor the schema', async () => {
    const first = open();
    await fill(first);
    const schema = () => {
      const db = new Database(path, { readonly: true });
      try {
        return {
          version: pragma(db, 'user_version'),
          objects: db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all(),
        };
      } finally {
        db.close();
      }
    };
    const before = schema();
    await first.close();
    const second = open();
    expect(await second.countChunks(makeDatastore().id)).toBe(20);
    await second.close();
    open();
    expect(schema()).toEqual(before);
  });

  it('leaves a database that passes integrity checks', async () => {
    const store = open();
    await fill(store);
    await store.deleteDatastore(makeDatastore().id);
    await fill(store);
    const db = new Database(path);
    try {
      expect(pragma(db, 'integrity_check')).toBe('ok');
      expect(pragma(db, 'foreign_key_check')).toBeUndefined();
    } finally {
      db.close();
    }
  });

  it('accepts a ready Database, configures it, and leaves closing it to its owner', async () => {
    const db = new Database(join(dir, 'owned.db'));
    const store = sqliteStore({ database: db });
    await fill(store);
    expect(pragma(db, 'foreign_keys')).toBe(1);
    expect(pragma(db, 'journal_mode')).toBe('wal');
    await store.close();
    expect(db.open).toBe(true);
    expect((db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n).toBe(20);
    await expect(store.countChunks('x')).rejects.toMatchObject({ code: 'closed' });
    db.close();
  });

  it.each(['UTF-8', 'UTF-16le'])('reads ids and vectors back bit for bit, in pages, from a %s database', async (encoding) => {
    const db = new Database(join(dir, 'encoded.db'));
    db.pragma(`encoding = '${encoding}'`);
    const store = sqliteStore({ database: db });
    const datastore = makeDatastore();
    const source = makeDatasource(datastore);
    await store.createDatastore(datastore);
    await store.createDatasource(source);
    const special = new Float32Array([0, -0, Number.NaN, 1e-45, -3.4e38, 1 / 3, 0x3f800000, 7]);
    const chunks = makeChunks(source, samplePassages(9, 41));
    chunks[4] = { ...(chunks[4] as (typeof chunks)[number]), vector: special };
    await store.replaceChunks(source.id, chunks);
    const read = new Map<string, Float32Array>();
    for await (const batch of store.iterateChunkVectors!(datastore.id, { batchSize: 4 })) {
      expect(batch.length).toBeLessThanOrEqual(4);
      for (const entry of batch) read.set(entry.id, entry.vector);
    }
    expect(String(pragma(db, 'encoding')).toLowerCase()).toBe(encoding.toLowerCase());
    expect([...read.keys()].sort()).toEqual(chunks.map((chunk) => chunk.id).sort());
    for (const chunk of chunks) {
      const vector = read.get(chunk.id) as Float32Array;
      expect(
        Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).equals(
          Buffer.from(chunk.vector.buffer, chunk.vector.byteOffset, chunk.vector.byteLength),
        ),
      ).toBe(true);
    }
    await store.close();
    db.close();
  });

  it('works in memory', async () => {
    const store = open({ path: ':memory:' });
    await fill(store);
    expect(await store.countChunks(makeDatastore().id)).toBe(20);
  });

  it('ignores the rows of a hidden chunk set left by a crash, and deletes them on open', async () => {
    await fill(open());
    const datastore = makeDatastore();
    const a = makeDatasource(datastore, { name: 'a.md' });
    const store = open();
    const visible = await store.listChunks(a.id);
    await store.close();
    // What a process killed half-way through a sliced replace leaves: rows of a generation that
    // never became the datasource's, listed as hidden; their ids are those of the visible rows.
    const db = new Database(path);
    db.exec(`
      INSERT INTO hidden_chunk_sets (datasource_id, generation) VALUES ('${a.id}', 77);
      INSERT INTO chunks (id, datastore_id, datasource_id, custom_id, position, token_count, char_offset, page_number, hash,
        metadata, text, vector, generation)
      SELECT id, datastore_id, datasource_id, custom_id, position + 100, token_count, char_offset, page_number, hash,
        metadata, 'half written', vector, 77 FROM chunks WHERE datasource_id = '${a.id}';
    `);
    db.close();
    const reopened = open();
    expect(await reopened.listChunks(a.id)).toEqual(visible);
    expect(await reopened.countChunks(datastore.id)).toBe(20);
    const check = new Database(path, { readonly: true });
    try {
      expect(check.prepare('SELECT count(*) AS n FROM chunks WHERE generation = 77').get()).toEqual({ n: 0 });
      expect(check.prepare('SELECT count(*) AS n FROM hidden_chunk_sets').get()).toEqual({ n: 0 });
    } finally {
      check.close();
    }
  });

  it('reads a hidden chunk set as absent while it exists', async () => {
    const store = open();
    await fill(store);
    const datastore = makeDatastore();
    const a = makeDatasource(datastore, { name: 'a.md' });
    const visible = await store.listChunks(a.id);
    const db = new Database(path);
    db.exec(`
      INSERT INTO hidden_chunk_sets (datasource_id, generation) VALUES ('${a.id}', 78);
      INSERT INTO chunks (id, datastore_id, datasource_id, custom_id, position, token_count, char_offset, page_number, hash,
        metadata, text, vector, generation)
      SELECT id || '-next', datastore_id, datasource_id, custom_id, position, token_count, char_offset, page_number, hash,
        metadata, 'half written', vector, 78 FROM chunks WHERE datasource_id = '${a.id}';
    `);
    db.close();
    expect(await store.listChunks(a.id)).toEqual(visible);
    expect(await store.countChunks(datastore.id)).toBe(20);
    expect(await store.getChunks(visible.map((chunk) => `${chunk.id}-next`))).toEqual([]);
    expect((await store.getChunkHits?.(visible.map((chunk) => `${chunk.id}-next`)))?.chunks).toEqual([]);
    const pages: string[] = [];
    for await (const page of store.iterateChunks(datastore.id)) pages.push(...page.map((chunk) => chunk.id));
    expect(pages.sort()).toEqual(visible.map((chunk) => chunk.id).sort());
    const vectorIds: string[] = [];
    for await (const page of store.iterateChunkVectors!(datastore.id)) vectorIds.push(...page.map((chunk) => chunk.id));
    expect(vectorIds.sort()).toEqual(visible.map((chunk) => chunk.id).sort());
    expect(await store.searchText({ datastoreId: datastore.id, query: 'half written', topK: 5 })).toEqual([]);
  });

  it('deletes a big datasource over several turns of the event loop, leaving no rows or hidden sets', async () => {
    const store = open();
    const datastore = makeDatastore();
    const big = makeDatasource(datastore, { name: 'big.md' });
    await store.createDatastore(datastore);
    await store.createDatasource(big);
    const passages = samplePassages(64, 9);
    const chunks = makeChunks(
      big,
      Array.from({ length: 3000 }, (_, i) => `${passages[i % passages.length] ?? ''} ${i}`),
    );
    await store.replaceChunks(big.id, chunks);
    // Each step of the delete counts as 1 ms of work, so its 8 ms slices end by the amount of work
    // done, not by the machine's speed. Counts the event-loop turns it gives back: one immediate per turn.
    setSliceClock(steppingClock(1));
    onTestFinished(() => setSliceClock(undefined));
    let turns = 0;
    let done = false;
    const tick = () => {
      turns++;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    const change = await store.deleteDatasource(big.id);
    done = true;
    expect(change?.removedIds.length).toBe(3000);
    expect(turns).toBeGreaterThan(2);
    const db = new Database(path, { readonly: true });
    try {
      expect(db.prepare('SELECT count(*) AS n FROM chunks').get()).toEqual({ n: 0 });
      expect(db.prepare('SELECT count(*) AS n FROM hidden_chunk_sets').get()).toEqual({ n: 0 });
      expect(db.prepare('SELECT count(*) AS n FROM datasources').get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });

  it('refuses a database written by a newer schema', async () => {
    await open().close();
    const db = new Database(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => open()).toThrow(expect.objectContaining({ code: 'invalid_adapter' }));
  });

  it("sees another connection's writes (two stores on one file)", async () => {
    const writer = open();
    const reader = open();
    await fill(writer);
    expect(await reader.countChunks(makeDatastore().id)).toBe(20);
    expect((await reader.searchText({ datastoreId: makeDatastore().id, query: 'telescope', topK: 3 })).length).toBeGreaterThan(0);
  });

  it('finds a rare word among common ones in a long query', async () => {
    const store = open();
    const datastore = makeDatastore();
    const source = makeDatasource(datastore);
    await store.createDatastore(datastore);
    await store.createDatasource(source);
    const rare = makeChunk(source, 40, 'The axolotl survey of the harbor.');
    await store.replaceChunks(source.id, [...makeChunks(source, samplePassages(40, 4)), rare]);
    const results = await store.searchText({
      datastoreId: datastore.id,
      query: 'telescope galaxy recipe harbor compost oven anchor axolotl',
      topK: 5,
    });
    expect(results[0]?.id).toBe(rare.id);
  });
});

/**
 * The FTS5 objects schema versions 1-4 had (migration 5 drops them), indexed from the chunk rows,
 * without what migration 5 added, so a file made to look older than 5 really is.
 */
function addLegacyFullText(db: Database.Database, version: number): void {
  db.exec(`
    DROP TABLE lexical_snapshots;
    CREATE VIRTUAL TABLE chunks_fts USING fts5 (
      text, content = 'chunks', content_rowid = 'pk', tokenize = 'porter unicode61 remove_diacritics 2'
    );
    CREATE VIRTUAL TABLE chunks_fts_vocab USING fts5vocab (chunks_fts, 'row');
    CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
      INSERT INTO chunks_fts (rowid, text) VALUES (new.pk, new.text);
    END;
    CREATE TRIGGER chunks_fts_update AFTER UPDATE OF text ON chunks WHEN old.text IS NOT new.text BEGIN
      INSERT INTO chunks_fts (chunks_fts, rowid, text) VALUES ('delete', old.pk, old.text);
      INSERT INTO chunks_fts (rowid, text) VALUES (new.pk, new.text);
    END;
    INSERT INTO chunks_fts (chunks_fts) VALUES ('rebuild');
  `);
  db.exec(
    version >= 3
      ? `CREATE TABLE fts_control (bulk INTEGER NOT NULL);
         INSERT INTO fts_control (bulk) VALUES (0);
         CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks WHEN (SELECT bulk FROM fts_control) = 0 BEGIN
           INSERT INTO chunks_fts (chunks_fts, rowid, text) VALUES ('delete', old.pk, old.text);
         END;`
      : `CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
           INSERT INTO chunks_fts (chunks_fts, rowid, text) VALUES ('delete', old.pk, old.text);
         END;`,
  );
}

/** Undoes migration 9 (uploads stored in parts), to make a file of an earlier version. */
const WITHOUT_FILE_PARTS =
  'DROP TABLE datasource_file_parts; ALTER TABLE datasource_files DROP COLUMN generation; ALTER TABLE datasource_files DROP COLUMN byte_length;';

/** Undoes migration 10 (chunk generations): chunk ids unique again, as earlier versions had them. */
const WITHOUT_CHUNK_GENERATIONS = `
  DROP TABLE hidden_chunk_sets; ALTER TABLE datasources DROP COLUMN chunk_generation;
  DROP INDEX chunks_id; DROP INDEX chunks_datasource; ALTER TABLE chunks DROP COLUMN generation;
  CREATE UNIQUE INDEX chunks_id_before_10 ON chunks (id); CREATE INDEX chunks_datasource ON chunks (datasource_id, position);`;

/** Undoes the API key expiry migration (one column). */
const WITHOUT_API_KEY_EXPIRY = 'ALTER TABLE api_keys DROP COLUMN expires_at;';
/** Undoes the upload links migration (one table of its own). */
const WITHOUT_UPLOADS = 'DROP TABLE uploads;';
const WITHOUT_CRAWLS = 'DROP TABLE crawl_pages; DROP TABLE crawl_states;';
/** Undoes the migration that made conversations readable (channel, feedback, listing indexes). */
const WITHOUT_CONVERSATION_READING = `
  DROP INDEX conversations_activity; DROP INDEX conversations_visitor; DROP INDEX messages_feedback;
  ALTER TABLE conversations DROP COLUMN channel;
  ALTER TABLE messages DROP COLUMN feedback; ALTER TABLE messages DROP COLUMN feedback_comment; ALTER TABLE messages DROP COLUMN feedback_at;`;
/**
 * Undoes the per-owner names migration, keeping the rows: one global handle index, conversations
 * keyed by id alone and messages without agent_id, as the migrations before it left them (feedback
 * and listing indexes included, for WITHOUT_CONVERSATION_READING to undo next).
 */
const WITHOUT_PER_OWNER_NAMES = `
  DROP INDEX agents_owner_handle; DROP INDEX agents_public_handle;
  CREATE UNIQUE INDEX agents_handle ON agents (handle) WHERE handle IS NOT NULL;
  CREATE TABLE conversations_before (
    pk INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    visitor_id TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, contact TEXT, channel TEXT);
  INSERT INTO conversations_before SELECT pk, id, agent_id, visitor_id, created_at, updated_at, contact, channel FROM conversations;
  CREATE TABLE messages_before (
    pk INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, conversation_id TEXT NOT NULL REFERENCES conversations_before (id) ON DELETE CASCADE,
    role TEXT NOT NULL, text TEXT NOT NULL, sources TEXT NOT NULL, usage TEXT, model TEXT, visitor_id TEXT NOT NULL, created_at TEXT NOT NULL,
    feedback TEXT, feedback_comment TEXT, feedback_at TEXT);
  INSERT INTO messages_before
    SELECT pk, id, conversation_id, role, text, sources, usage, model, visitor_id, created_at, feedback, feedback_comment, feedback_at FROM messages;
  DROP TABLE messages; DROP TABLE conversations;
  ALTER TABLE conversations_before RENAME TO conversations; ALTER TABLE messages_before RENAME TO messages;
  CREATE INDEX conversations_agent ON conversations (agent_id, created_at);
  CREATE INDEX conversations_activity ON conversations (agent_id, updated_at DESC, id DESC);
  CREATE INDEX conversations_visitor ON conversations (agent_id, visitor_id, updated_at DESC, id DESC);
  CREATE INDEX messages_conversation ON messages (conversation_id, created_at, pk);
  CREATE INDEX messages_feedback ON messages (conversation_id, feedback) WHERE feedback IS NOT NULL;`;

describe('sqliteStore datasource pipeline', () => {
  /** Tables, indexes and triggers as SQLite stores them, to compare two files' schemas. */
  const schemaOf = (file: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name').all();
    } finally {
      db.close();
    }
  };

  /** The migrated file is at the current version, intact, with the schema of a file created at it. */
  const expectCurrentAndLikeFresh = async () => {
    const check = new Database(path, { readonly: true });
    try {
      expect(pragma(check, 'user_version')).toBe(SCHEMA_VERSION);
      expect(pragma(check, 'integrity_check')).toBe('ok');
      expect(pragma(check, 'foreign_key_check')).toBeUndefined();
    } finally {
      check.close();
    }
    const freshPath = join(dir, 'fresh.db');
    await sqliteStore({ path: freshPath }).close();
    expect(schemaOf(path)).toEqual(schemaOf(freshPath));
  };

  it('migrates a version-1 file to the current version, keeping its data', async () => {
    // A version-1 file: what migration 1 alone creates, with data written by the store.
    const old = open();
    await fill(old);
    await old.close();
    const db = new Database(path);
    db.exec(`
      DROP TABLE usage_counters; DROP TABLE api_keys; DROP TABLE messages; DROP TABLE conversations; DROP TABLE agents;
      DROP INDEX datastores_owner; ALTER TABLE datastores DROP COLUMN owner_id;
      DROP TABLE jobs; DROP TABLE status_events; DROP TABLE datasource_file_parts; DROP TABLE datasource_files;
      ${WITHOUT_CHUNK_GENERATIONS}
      ${WITHOUT_UPLOADS}
      ${WITHOUT_CRAWLS}
      PRAGMA user_version = 1;
    `);
    addLegacyFullText(db, 1);
    db.close();
    const tables = schemaOf(path).map((row) => (row as { name: string }).name);
    expect(tables).not.toContain('jobs');
    expect(tables).toContain('chunks');

    const store = open();
    const datastore = makeDatastore();
    const a = makeDatasource(datastore, { name: 'a.md' });
    expect(await store.countChunks(datastore.id)).toBe(20);
    expect(await store.getDatasource(a.id)).toEqual(a);
    expect((await store.listChunks(a.id)).map((chunk) => chunk.text)).toEqual(samplePassages(20, 3));
    // The new tables work for rows that predate them.
    expect(await store.listStatusEvents(a.id)).toEqual([]);
    await store.putDatasourceFile(a.id, { bytes: new Uint8Array([7, 8]), mimeType: 'text/plain', fileName: 'a.md' });
    await store.createJob(makeJob(a, 1));
    await store.transitionDatasource(a.id, ['synched'], { status: 'pending', updatedAt: isoAt(2) });
    expect(await store.listStatusEvents(a.id)).toEqual([
      { datasourceId: a.id, from: 'synched', to: 'pending', at: isoAt(2), message: null },
    ]);
    expect((await store.claimJob({ owner: 'w', now: isoAt(3), leaseUntil: isoAt(4) }))?.datasourceId).toBe(a.id);
    await store.close();

    await expectCurrentAndLikeFresh();
  });

  it('migrates a version-3 file to the current version: datastores get owner NULL, agent tables work', async () => {
    // A version-3 file: the current schema minus what migration 4 added, with data written by the store.
    const old = open();
    await fill(old);
    await old.close();
    const db = new Database(path);
    db.exec(`
      DROP TABLE usage_counters; DROP TABLE api_keys; DROP TABLE messages; DROP TABLE conversations; DROP TABLE agents;
      DROP INDEX datastores_owner;
      ALTER TABLE datastores DROP COLUMN owner_id;
      ${WITHOUT_FILE_PARTS}
      ${WITHOUT_CHUNK_GENERATIONS}
      ${WITHOUT_UPLOADS}
      ${WITHOUT_CRAWLS}
      PRAGMA user_version = 3;
    `);
    addLegacyFullText(db, 3);
    // A datastore written by a version-3 store, which knew no owners.
    db.prepare(
      `INSERT INTO datastores (id, name, description, embedding_model, embedding_dimensions, created_at, updated_at)
       VALUES ('ds-legacy', 'Legacy', '', 'test-embedding-8', 8, ?, ?)`,
    ).run(isoAt(1), isoAt(1));
    db.close();
    const columns = () => {
      const check = new Database(path, { readonly: true });
      try {
        return (check.prepare('PRAGMA table_info(datastores)').all() as { name: string }[]).map((column) => column.name);
      } finally {
        check.close();
      }
    };
    expect(columns()).not.toContain('owner_id');

    const store = open();
    expect(columns()).toContain('owner_id');
    const datastores = await store.listDatastores();
    expect(datastores.map((d) => [d.id, d.ownerId])).toEqual([
      [makeDatastore().id, null],
      ['ds-legacy', null],
    ]);
    expect(await store.countChunks(makeDatastore().id)).toBe(20);
    expect(await store.listDatastores({ ownerId: 'owner-a' })).toEqual([]);
    await store.createDatastore(makeDatastore({ name: 'Owned', ownerId: 'owner-a' }));
    expect((await store.listDatastores({ ownerId: 'owner-a' })).map((d) => d.name)).toEqual(['Owned']);
    const agent = makeAgent({ ownerId: 'owner-a', datastoreIds: ['ds-legacy'] });
    const conversation = makeConversation(agent, 3);
    await store.createAgent(agent);
    await store.createConversation(conversation);
    await store.appendMessages(agent.id, conversation.id, [makeMessage(conversation, 4, 'user')]);
    await store.createApiKey(makeApiKey('owner-a'));
    expect(await store.consumeUsage({ subject: 'owner-a', metric: 'q', period: 'p', amount: 1, limit: 1 })).toEqual({
      allowed: true,
      used: 1,
    });
    expect(await store.listMessages(agent.id, conversation.id)).toHaveLength(1);
    await store.close();

    await expectCurrentAndLikeFresh();
  });

  it('migrates a version-4 file: the FTS5 table and triggers go, search and deletes still work', async () => {
    const old = open();
    await fill(old);
    await old.close();
    const db = new Database(path);
    db.exec(WITHOUT_CRAWLS);
    db.exec(WITHOUT_API_KEY_EXPIRY);
    db.exec(WITHOUT_PER_OWNER_NAMES);
    // What version 7 added (agent handle and settings, conversation contact) did not exist yet either.
    db.exec(
      'DROP INDEX agents_handle; ALTER TABLE agents DROP COLUMN handle; ALTER TABLE agents DROP COLUMN settings; ALTER TABLE conversations DROP COLUMN contact;',
    );
    addLegacyFullText(db, 4);
    db.exec('ALTER TABLE agents DROP COLUMN allow_overrides'); // added by migration 6
    db.exec(WITHOUT_FILE_PARTS);
    db.exec(WITHOUT_CHUNK_GENERATIONS);
    db.exec(WITHOUT_CONVERSATION_READING);
    db.exec(WITHOUT_UPLOADS);
    db.pragma('user_version = 4');
    db.close();
    expect(schemaOf(path).map((row) => (row as { name: string }).name)).toContain('chunks_fts');

    const store = open();
    const names = schemaOf(path).map((row) => (row as { name: string }).name);
    expect(names.filter((name) => name.includes('fts'))).toEqual([]);
    const datastore = makeDatastore();
    const a = makeDatasource(datastore, { name: 'a.md' });
    const [first] = await store.listChunks(a.id);
    const word = first!.text.split(/\W+/).find((candidate) => candidate.length > 6)!;
    expect((await store.searchText({ datastoreId: datastore.id, query: word, topK: 20 })).map((hit) => hit.id)).toContain(first!.id);
    // Deleting chunk rows no longer fires a trigger into a table that is gone.
    await store.deleteDatasource(a.id);
    expect(await store.searchText({ datastoreId: datastore.id, query: word, topK: 20 })).toEqual([]);
    const freshPath = join(dir, 'fresh.db');
    await sqliteStore({ path: freshPath }).close();
    expect(schemaOf(path)).toEqual(schemaOf(freshPath));
  });

  it('migrates a file written before conversations were readable: its messages read unmarked, its conversations list', async () => {
    const old = open();
    const agent = makeAgent({ name: 'Support' });
    const conversation = makeConversation(agent, 3);
    await old.createAgent(agent);
    await old.createConversation(conversation);
    const question = makeMessage(conversation, 4, 'user');
    const answer = makeMessage(conversation, 5, 'assistant');
    await old.appendMessages(agent.id, conversation.id, [question, answer]);
    await old.close();
    const db = new Database(path);
    // Newest first: what came after it, then the readable-conversations migration itself.
    db.exec(WITHOUT_CRAWLS);
    db.exec(WITHOUT_API_KEY_EXPIRY);
    db.exec(WITHOUT_PER_OWNER_NAMES);
    db.exec(WITHOUT_CONVERSATION_READING);
    db.pragma(`user_version = ${CONVERSATION_READING_VERSION - 1}`);
    db.close();

    const store = open();
    expect(await store.listMessages(agent.id, conversation.id)).toEqual([answer, question]);
    expect(await store.getConversation(agent.id, conversation.id)).toEqual({ ...conversation, updatedAt: isoAt(5) });
    expect((await store.findConversations({ agentId: agent.id, limit: 5 })).map((c) => c.id)).toEqual([conversation.id]);
    const marked = await store.setMessageFeedback(answer.id, { value: 'bad', comment: 'Off topic', createdAt: isoAt(9) });
    expect(marked?.feedback).toEqual({ value: 'bad', comment: 'Off topic', createdAt: isoAt(9) });
    expect((await store.findConversations({ agentId: agent.id, limit: 5, feedback: 'bad' })).length).toBe(1);
    const freshPath = join(dir, 'fresh.db');
    await sqliteStore({ path: freshPath }).close();
    expect(schemaOf(path)).toEqual(schemaOf(freshPath));
  });

  it('never lets two stores on one file consume past a usage limit', async () => {
    const stores = [open(), open()];
    const counter = { subject: 'owner-a', metric: 'agent_queries', period: '2026-11-22', limit: 25 };
    // Interleaved: each store's check reads the count the other just committed.
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => stores[i % 2]!.consumeUsage({ ...counter, amount: 1 })));
    expect(results.filter((result) => result.allowed)).toHaveLength(25);
    expect(results.slice(25).every((result) => !result.allowed && result.used === 25)).toBe(true);
    expect(await stores[1]!.consumeUsage({ ...counter, amount: 0 })).toEqual({ allowed: true, used: 25 });
  });

  it('never gives one job to two stores claiming on the same file', async () => {
    const first = open();
    const second = open();
    const datastore = makeDatastore();
    const sources = [makeDatasource(datastore, { name: 'x.md' }), makeDatasource(datastore, { name: 'y.md' })];
    await first.createDatastore(datastore);
    for (const source of sources) await first.createDatasource(source);
    const jobs = Array.from({ length: 24 }, (_, i) => makeJob(sources[i % 2]!, i));
    for (const job of jobs) await (job.createdAt < isoAt(12) ? first : second).createJob(job);

    // Interleaved: each store's claim sees the lease the other just committed.
    const stores = [first, second];
    const claims = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        stores[i % 2]!.claimJob({ owner: `store-${i % 2}-${i}`, now: isoAt(100), leaseUntil: isoAt(200) }),
      ),
    );
    const won = claims.flatMap((job) => (job === null ? [] : [job]));
    expect(won.map((job) => job.id).sort()).toEqual(jobs.map((job) => job.id).sort());
    expect(claims.slice(24).every((job) => job === null)).toBe(true);
    // Each store reads back the owner the other wrote.
    for (const job of won) {
      expect(await first.getJob(job.id)).toEqual(job);
      expect(await second.getJob(job.id)).toEqual(job);
    }
    expect(new Set(won.map((job) => job.leaseOwner)).size).toBe(24);

    // After the leases expire, each job goes to exactly one of them again.
    const again = [];
    for (let i = 0; i < 30; i++) {
      again.push(await stores[i % 2]!.claimJob({ owner: `late-${i}`, now: isoAt(201), leaseUntil: isoAt(300) }));
    }
    const reclaimed = again.flatMap((job) => (job === null ? [] : [job]));
    expect(new Set(reclaimed.map((job) => job.id)).size).toBe(24);
    expect(reclaimed.every((job) => job.attempts === 2)).toBe(true);
  });
});
