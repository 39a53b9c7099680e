import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION, sqliteStore } from '../../adapters/sqlite/index.js';
import type { Store } from '../../src/ports/store.js';
import { makeChunk, makeChunks, makeDatasource, makeDatastore } from '../../src/testing/fixtures.js';
import { samplePassages } from '../../src/testing/sample-texts.js';

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
        return { version: pragma(db, 'user_version'), objects: db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all() };
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

  it('leaves a database that passes integrity checks, full-text index included', async () => {
    const store = open();
    await fill(store);
    await store.deleteDatastore(makeDatastore().id);
    await fill(store);
    const db = new Database(path);
    try {
      expect(pragma(db, 'integrity_check')).toBe('ok');
      expect(pragma(db, 'foreign_key_check')).toBeUndefined();
      // Throws when the index and the chunk table disagree (rank 1 compares against the content).
      db.prepare("INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('integrity-check', 1)").run();
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

  it('works in memory', async () => {
    const store = open({ path: ':memory:' });
    await fill(store);
    expect(await store.countChunks(makeDatastore().id)).toBe(20);
  });

  it('refuses a database written by a newer schema', async () => {
    await open().close();
    const db = new Database(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => open()).toThrow(expect.objectContaining({ code: 'invalid_adapter' }));
  });

  it('sees another connection\'s writes (two stores on one file)', async () => {
    const writer = open();
    const reader = open();
    await fill(writer);
    expect(await reader.countChunks(makeDatastore().id)).toBe(20);
    expect((await reader.searchText({ datastoreId: makeDatastore().id, query: 'telescope', topK: 3 })).length).toBeGreaterThan(0);
  });

  it('bounds long queries to their rarest terms and still finds the rare one', async () => {
    const store = open({ lexicalLimits: { maxTerms: 2 } });
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

describe('sqliteStore lexical search when every term is common', () => {
  it('searches rows holding all of them, then fewer, instead of scoring every row', async () => {
    // A budget of 0 makes every term that occurs at all "common".
    const store = open({ lexicalLimits: { postingBudget: 0 } });
    const datastore = makeDatastore();
    const source = makeDatasource(datastore);
    await store.createDatastore(datastore);
    await store.createDatasource(source);
    const chunks = makeChunks(source, [
      'The harbor anchor held.',
      'The harbor tide rose.',
      'The anchor chain and the harbor tide.',
      'The tide turned.',
    ]);
    await store.replaceChunks(source.id, chunks);
    const search = (query: string) =>
      store.searchText({ datastoreId: datastore.id, query, topK: 10 }).then((results) => results.map((r) => r.id));
    // Only the chunk holding all three terms qualifies.
    expect(await search('harbor tide anchor')).toEqual([chunks[2]!.id]);
    // No chunk holds both: the plan falls back to the first (rarest) term alone.
    expect(await search('chain turned')).toEqual([chunks[2]!.id]);
  });
});
