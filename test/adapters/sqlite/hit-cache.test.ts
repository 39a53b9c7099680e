/**
 * The SQLite store's cache of search hits' rows (hit-cache.ts): a hit read again comes from memory,
 * and any change to the database (through the store, or another connection on the file) empties
 * it, so `getChunkHits` always answers as an uncached read would. The cache's bound is checked on
 * the class itself.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HitCache } from '../../../adapters/sqlite/hit-cache.js';
import { sqliteStores } from '../../../adapters/sqlite/index.js';
import type { ChunkRecord, DatasourceRecord } from '../../../src/ports/records.js';
import type { RetrievalStore, StorePair } from '../../../src/ports/store.js';
import { makeChunks, makeDatasource, makeDatastore } from '../../../src/testing/fixtures.js';
import { samplePassages } from '../../../src/testing/sample-texts.js';

let dir: string;
let path: string;
const opened: StorePair[] = [];

function open(hitCacheBytes?: number): StorePair {
  const stores = sqliteStores({ path, ...(hitCacheBytes === undefined ? {} : { hitCacheBytes }) });
  opened.push(stores);
  return stores;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ragdesk-hit-cache-'));
  path = join(dir, 'store.db');
});

afterEach(async () => {
  for (const { retrieval, accounts } of opened.splice(0)) await Promise.all([retrieval.close(), accounts.close()]);
  rmSync(dir, { recursive: true, force: true });
});

async function filled(retrieval: RetrievalStore): Promise<{ source: DatasourceRecord; chunks: ChunkRecord[] }> {
  const datastore = makeDatastore();
  const source = makeDatasource(datastore, { name: 'a.md', metadata: { team: 'docs' }, config: { source_url: 'https://example.com/a' } });
  await retrieval.createDatastore(datastore);
  await retrieval.createDatasource(source);
  const chunks = makeChunks(source, samplePassages(12, 4), { metadata: { section: 'one' } });
  await retrieval.replaceChunks(source.id, chunks);
  return { source, chunks };
}

describe('sqlite store: cached search hits', () => {
  it('answers a read again exactly as an uncached read, with records of its own each time', async () => {
    const { retrieval } = open();
    // What an uncached read answers: a second store on the file with the cache off, opened first
    // (opening writes nothing after that, which would empty the first store's cache).
    const plain = open(0).retrieval;
    const uncached = (ids: readonly string[]) => plain.getChunkHits!(ids);
    const { chunks } = await filled(retrieval);
    const ids = [chunks[3]!.id, 'unknown', chunks[0]!.id, chunks[7]!.id];
    const first = await retrieval.getChunkHits!(ids);
    const again = await retrieval.getChunkHits!([...ids].reverse());
    expect(first).toEqual(await uncached(ids));
    expect(again).toEqual(await uncached([...ids].reverse()));
    // Mutating what one read returned changes nothing the next read returns.
    first.chunks[0]!.metadata.section = 'changed';
    first.datasources[0]!.metadata.team = 'changed';
    first.datasources[0]!.config.source_url = 'changed';
    expect(await retrieval.getChunkHits!(ids)).toEqual(await uncached(ids));
  });

  it('a chunk, datasource or deletion written through the store shows in the next read', async () => {
    const { retrieval } = open();
    const { source, chunks } = await filled(retrieval);
    const ids = chunks.slice(0, 4).map((chunk) => chunk.id);
    await retrieval.getChunkHits!(ids);
    // The same ids with new text (replaceChunks overwrites rows with a listed id).
    const rewritten = chunks.map((chunk, i) => (i === 1 ? { ...chunk, text: 'Rewritten text.', metadata: { section: 'two' } } : chunk));
    await retrieval.replaceChunks(source.id, rewritten);
    const afterText = await retrieval.getChunkHits!(ids);
    expect(afterText.chunks[1]).toMatchObject({ text: 'Rewritten text.', metadata: { section: 'two' } });
    await retrieval.updateDatasource(source.id, { name: 'renamed.md', metadata: { team: 'support' } });
    const afterRename = await retrieval.getChunkHits!(ids);
    expect(afterRename.datasources).toEqual([expect.objectContaining({ name: 'renamed.md', metadata: { team: 'support' } })]);
    await retrieval.deleteDatasource(source.id);
    expect(await retrieval.getChunkHits!(ids)).toEqual({ chunks: [], datasources: [] });
  });

  it('a write by another connection on the file shows in the next read', async () => {
    const { retrieval } = open();
    const { chunks } = await filled(retrieval);
    const ids = [chunks[2]!.id];
    expect((await retrieval.getChunkHits!(ids)).chunks[0]!.text).toBe(chunks[2]!.text);
    const other = new Database(path);
    try {
      other.prepare('UPDATE chunks SET text = ? WHERE id = ?').run('Written elsewhere.', chunks[2]!.id);
    } finally {
      other.close();
    }
    expect((await retrieval.getChunkHits!(ids)).chunks[0]!.text).toBe('Written elsewhere.');
  });
});

describe('HitCache', () => {
  let db: Database.Database;
  beforeEach(() => {
    db = new Database(':memory:');
  });
  afterEach(() => db.close());

  const row = (id: string, characters: number) => [id, 'x'.repeat(characters)];

  it('keeps at most its budget, the least recently used rows going first', () => {
    // Each row: 160 fixed + a byte per Latin-1 character of the id (twice: key and value) and the text.
    const cache = new HitCache(db, 3 * (160 + 2 + 2 + 1000));
    cache.check();
    for (const id of ['r1', 'r2', 'r3']) cache.put(id, row(id, 1000));
    expect(cache.size.rows).toBe(3);
    expect(cache.get('r1')).toEqual(row('r1', 1000));
    cache.put('r4', row('r4', 1000));
    expect(cache.size.rows).toBe(3);
    expect(cache.get('r2')).toBeUndefined();
    expect(cache.get('r1')).toBeDefined();
    expect(cache.size.bytes).toBe(3 * (160 + 4 + 1000));
    // A row larger than the whole budget is not kept; characters beyond Latin-1 count two bytes.
    cache.put('big', row('big', 10_000));
    expect(cache.get('big')).toBeUndefined();
    cache.put('wide', ['wide', 'ж'.repeat(1800)]);
    expect(cache.get('wide')).toBeUndefined();
    cache.put('narrow', ['narrow', 'é'.repeat(1800)]);
    expect(cache.get('narrow')).toBeDefined();
  });

  it('empties itself on the next check after any change to the database', () => {
    db.exec('CREATE TABLE t (x)');
    const cache = new HitCache(db, 1 << 20);
    cache.check();
    cache.put('r1', row('r1', 10));
    cache.check();
    expect(cache.get('r1')).toBeDefined();
    db.exec('INSERT INTO t VALUES (1)');
    cache.check();
    expect(cache.get('r1')).toBeUndefined();
  });

  it('is refused a negative or fractional budget by sqliteStores', () => {
    expect(() => sqliteStores({ path: ':memory:', hitCacheBytes: -1 })).toThrow(/hitCacheBytes/);
    expect(() => sqliteStores({ path: ':memory:', hitCacheBytes: 1.5 })).toThrow(/hitCacheBytes/);
  });
});
