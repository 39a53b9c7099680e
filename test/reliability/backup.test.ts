/**
 * Backup and restore on real files: an instance keeps serving and writing while
 * its data directory is backed up; the backup restores into a fresh directory that answers
 * queries exactly like the source did at the snapshot.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backupDataDir, restoreDataDir, verifyBackup } from '../../adapters/node.js';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { localEmbeddings } from '../../adapters/local/index.js';
import { backupSqliteFile } from '../../adapters/sqlite/backup.js';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import { checkConsistency } from '../../benchmarks/crash/checks.js';
import { INTERRUPTED_UPSERT } from '../../src/datasources/interrupted.js';
import { createRagdesk, type Datastore, type Ragdesk } from '../../src/index.js';
import { tempDir } from '../helpers/setups.js';

const TOPICS = ['glacier fjord', 'volcano lava', 'coral reef', 'desert dune', 'rainforest canopy', 'tundra permafrost'];
const QUERIES = ['lava flows from the volcano', 'reef fish and coral', 'ice of the fjord', 'document number 7'];

/** The embedded layout (`ragdesk.db` + `indexes/`) with a chosen index flush delay. */
function open(dir: string, flushAfterMs = 5_000): Ragdesk {
  return openWithIndex(dir, flushAfterMs).ragdesk;
}

/** With the index at hand, for tests that write its files (flush) before a backup instead of waiting. */
function openWithIndex(dir: string, flushAfterMs = 5_000): { ragdesk: Ragdesk; index: ReturnType<typeof hnswIndex> } {
  const index = hnswIndex({ dir: join(dir, 'indexes'), flushAfterMs });
  return { ragdesk: createRagdesk({ ...sqliteStores({ path: join(dir, 'ragdesk.db') }), index, embeddings: localEmbeddings() }), index };
}

function documents(from: number, count: number) {
  return Array.from({ length: count }, (_, i) => ({
    name: `doc-${from + i}`,
    text: `Document number ${from + i} is about ${TOPICS[(from + i) % TOPICS.length]}. ${'Filler words about the topic. '.repeat((from + i) % 4)}`,
  }));
}

async function answers(datastore: Datastore) {
  const all = [];
  for (const query of QUERIES) {
    for (const mode of ['vector', 'lexical', 'hybrid'] as const) {
      const fragments = await datastore.query({ query, topK: 5, mode });
      all.push(
        fragments.map((fragment) => ({
          id: fragment.chunk_id,
          text: fragment.text,
          datasource: fragment.datasource_id,
          score: fragment.score,
        })),
      );
    }
  }
  return all;
}

async function inspect(dir: string) {
  const { retrieval, accounts } = sqliteStores({ path: join(dir, 'ragdesk.db') });
  const index = hnswIndex({ dir: join(dir, 'indexes') });
  try {
    return await checkConsistency(retrieval, index, { settled: true });
  } finally {
    await index.close();
    await retrieval.close();
    await accounts.close();
  }
}

describe('backup and restore of a data directory', () => {
  let temp: ReturnType<typeof tempDir>;
  let source: string;
  let ragdesk: Ragdesk;
  beforeEach(() => {
    temp = tempDir('ragdesk-backup-');
    source = join(temp.dir, 'data');
  });
  afterEach(async () => {
    await ragdesk?.close();
    temp.remove();
  });

  it('restores into a fresh directory with identical query results and the index loaded as it was', async () => {
    const opened = openWithIndex(source);
    ragdesk = opened.ragdesk;
    const datastore = await ragdesk.datastores.create({ name: 'kb' });
    await datastore.upsert(documents(0, 40));
    await opened.index.flush(); // the index files are current
    const before = await answers(datastore);

    const report = await backupDataDir(source, join(temp.dir, 'backup'));
    expect(report.indexes).toEqual([{ datastoreId: datastore.id, state: 'current' }]);
    expect(report.datastores).toBe(1);
    await verifyBackup(join(temp.dir, 'backup'));

    const restored = join(temp.dir, 'restored');
    const restore = await restoreDataDir(join(temp.dir, 'backup'), restored);
    expect(restore.replaced).toBe(false);
    const check = await inspect(restored);
    expect(check.failures).toEqual([]);
    expect(check.opens.map((open) => open.result.rebuilt)).toEqual([false]);
    expect(check.chunks).toBe(40);

    const copy = open(restored);
    try {
      expect(await answers(await copy.datastores.get(datastore.id))).toEqual(before);
    } finally {
      await copy.close();
    }
  });

  it('backs up while the instance keeps writing: a consistent snapshot, stale index files left to a rebuild', async () => {
    // No idle flush: the index files always lag the store, so the backup must say `rebuild`.
    ragdesk = open(source, Number.POSITIVE_INFINITY);
    const datastore = await ragdesk.datastores.create({ name: 'busy' });
    await datastore.upsert(documents(0, 30));
    let writing = true;
    let written = 30;
    const writer = (async () => {
      while (writing) {
        await datastore.upsert(documents(written, 3));
        written += 3;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const report = await backupDataDir(source, join(temp.dir, 'backup'));
    const writtenAtBackup = written;
    // Until one more write lands after the backup, however long a write takes on this machine.
    while (written === writtenAtBackup) await new Promise((resolve) => setTimeout(resolve, 10));
    writing = false;
    await writer;
    expect(written).toBeGreaterThan(writtenAtBackup); // writes went on around the backup

    expect(report.indexes).toEqual([{ datastoreId: datastore.id, state: 'rebuild', detail: expect.any(String) }]);
    const restored = join(temp.dir, 'restored');
    await restoreDataDir(join(temp.dir, 'backup'), restored);
    // Index files of another state than the snapshot are not kept: they would only be rebuilt.
    expect(existsSync(join(restored, 'indexes')) ? readdirSync(join(restored, 'indexes')) : []).toEqual([]);

    // A snapshot of a live instance is what a crash at that moment would leave: the document an
    // upsert was writing may have its record and not yet its chunks. Opening settles it as error.
    const copy = open(restored);
    try {
      await copy.datasources.start();
      const sources = await copy.datasources.list(datastore.id);
      const unfinished = sources.filter((source) => source.status !== 'synched');
      expect(unfinished.every((source) => source.status === 'error' && source.error === INTERRUPTED_UPSERT)).toBe(true);
      expect(unfinished.length).toBeLessThanOrEqual(3); // at most the batch being written
      const restoredStore = await copy.datastores.get(datastore.id);
      const [hit] = await restoredStore.query({ query: 'Document number 12', topK: 1, mode: 'lexical' });
      expect(hit?.text).toContain('Document number 12 ');
    } finally {
      await copy.close();
    }
    const check = await inspect(restored);
    expect(check.failures).toEqual([]);
    // Whole documents only (each upsert batch of 3 is 3 one-chunk documents), at least those
    // written before the backup started.
    expect(check.chunks).toBeGreaterThanOrEqual(30);
    expect(check.chunks).toBeLessThanOrEqual(written);
  });

  it('refuses to restore over a non-empty directory unless forced, then replaces it whole', async () => {
    ragdesk = open(source);
    const datastore = await ragdesk.datastores.create({ name: 'kb' });
    await datastore.upsert(documents(0, 5));
    await backupDataDir(source, join(temp.dir, 'backup'));

    // The target holds another instance's data, WAL files included.
    const other = join(temp.dir, 'other');
    const previous = open(other);
    await (await previous.datastores.create({ name: 'old' })).upsert(documents(100, 3));
    await previous.close();
    writeFileSync(join(other, 'ragdesk.db-wal'), 'stale wal bytes');

    await expect(restoreDataDir(join(temp.dir, 'backup'), other)).rejects.toMatchObject({ code: 'conflict' });
    expect(readdirSync(other)).toContain('ragdesk.db-wal'); // untouched

    const restore = await restoreDataDir(join(temp.dir, 'backup'), other, { force: true });
    expect(restore.replaced).toBe(true);
    expect(existsSync(join(other, 'ragdesk.db-wal'))).toBe(false);
    const copy = open(other);
    try {
      expect((await copy.datastores.list()).map((store) => store.name)).toEqual(['kb']);
    } finally {
      await copy.close();
    }
    // No staging or set-aside directories are left beside it.
    expect(readdirSync(temp.dir).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('refuses a backup target that is not empty, and damaged or incomplete backups', async () => {
    const opened = openWithIndex(source);
    ragdesk = opened.ragdesk;
    const datastore = await ragdesk.datastores.create({ name: 'kb' });
    await datastore.upsert(documents(0, 10));
    await opened.index.flush();
    const backup = join(temp.dir, 'backup');
    mkdirSync(backup);
    writeFileSync(join(backup, 'keep.txt'), 'mine');
    await expect(backupDataDir(source, backup)).rejects.toMatchObject({ code: 'conflict' });
    expect(readFileSync(join(backup, 'keep.txt'), 'utf8')).toBe('mine');
    await backupDataDir(source, backup, { force: true });
    expect(existsSync(join(backup, 'keep.txt'))).toBe(false);

    // A flipped byte in the database copy.
    const database = join(backup, 'ragdesk.db');
    const bytes = readFileSync(database);
    bytes[bytes.length - 100] = (bytes[bytes.length - 100] as number) ^ 0xff;
    writeFileSync(database, bytes);
    await expect(verifyBackup(backup)).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining('checksum') });
    await expect(restoreDataDir(backup, join(temp.dir, 'restored'))).rejects.toMatchObject({ code: 'invalid_request' });
    expect(existsSync(join(temp.dir, 'restored'))).toBe(false);

    // A damaged index binary.
    const second = join(temp.dir, 'second');
    await backupDataDir(source, second);
    const [collection] = readdirSync(join(second, 'indexes'));
    const binary = readdirSync(join(second, 'indexes', collection as string)).find((name) => name.endsWith('.bin')) as string;
    writeFileSync(join(second, 'indexes', collection as string, binary), 'not an index');
    await expect(verifyBackup(second)).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining('indexes/') });

    // No manifest: an interrupted backup.
    const partial = join(temp.dir, 'partial');
    mkdirSync(partial);
    writeFileSync(join(partial, 'ragdesk.db'), '');
    await expect(restoreDataDir(partial, join(temp.dir, 'restored'))).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(backupDataDir(join(temp.dir, 'nothing-here'), join(temp.dir, 'b3'))).rejects.toMatchObject({ code: 'not_found' });
  });

  it('starts the database copy over when another connection writes between steps, and still finishes', async () => {
    ragdesk = open(source);
    const datastore = await ragdesk.datastores.create({ name: 'kb' });
    await datastore.upsert(documents(0, 60));
    // Another connection writes between two steps of a copy made in one-page steps.
    const writer = new Database(join(source, 'ragdesk.db'));
    let steps = 0;
    try {
      const snapshot = await backupSqliteFile(join(source, 'ragdesk.db'), join(temp.dir, 'copy.db'), {
        stepPages: 1,
        onProgress: () => {
          if (++steps === 3) writer.prepare('UPDATE datastores SET description = ? WHERE id = ?').run('changed mid-copy', datastore.id);
        },
      });
      expect(snapshot.restarts).toBe(1);
      expect(snapshot.datastores.map((store) => store.id)).toEqual([datastore.id]);
    } finally {
      writer.close();
    }
    const copy = new Database(join(temp.dir, 'copy.db'), { readonly: true });
    try {
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(copy.prepare('SELECT COUNT(*) FROM chunks').pluck().get()).toBe(60);
      // The snapshot is the state after the write, not a mix of pages from before and after.
      expect(copy.prepare('SELECT description FROM datastores').pluck().get()).toBe('changed mid-copy');
    } finally {
      copy.close();
    }
  });
});
