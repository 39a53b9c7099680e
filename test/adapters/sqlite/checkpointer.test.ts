/**
 * WAL checkpoints on a worker thread: the main connection stops checkpointing inside its commits,
 * the worker keeps the WAL bounded, nothing is lost, and the store's close still folds the WAL
 * back into the database file.
 */
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FALLBACK_AUTOCHECKPOINT_PAGES, startCheckpointer } from '../../../adapters/sqlite/checkpointer.js';
import { configureConnection, WAL_SIZE_LIMIT_BYTES } from '../../../adapters/sqlite/database.js';
import { sqliteStore } from '../../../adapters/sqlite/index.js';
import { makeChunks, makeDatasource, makeDatastore } from '../../../src/testing/fixtures.js';
import { samplePassages } from '../../../src/testing/sample-texts.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ragdesk-checkpointer-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const walBytes = (path: string) => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);

/** A WAL database like the store's, with a table to fill with 1 MB transactions. */
function openBulk(path: string) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE IF NOT EXISTS blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
  const insert = db.prepare('INSERT INTO blobs (body) VALUES (?)');
  const writeMegabyte = () => db.transaction(() => insert.run(Buffer.alloc(1 << 20, 7)))();
  return { db, writeMegabyte };
}

describe('WAL size', () => {
  it('cuts a WAL that a long read let grow back to the limit once checkpoints can restart it', () => {
    const path = join(dir, 'grown.db');
    const db = new Database(path);
    configureConnection(db, 5_000);
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
    const insert = db.prepare('INSERT INTO blobs (body) VALUES (?)');
    // A reader holding its snapshot keeps every frame in the WAL while 96 MiB are committed.
    const reader = new Database(path);
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM blobs').get();
    for (let i = 0; i < 96; i++) insert.run(Buffer.alloc(1 << 20, 7));
    expect(walBytes(path)).toBeGreaterThan(WAL_SIZE_LIMIT_BYTES);
    reader.exec('COMMIT');
    db.pragma('wal_checkpoint(PASSIVE)');
    insert.run(Buffer.alloc(1024, 7)); // the next commit restarts the WAL from its start
    expect(walBytes(path)).toBeLessThanOrEqual(WAL_SIZE_LIMIT_BYTES);
    reader.close();
    db.close();
  });
});

describe('WAL checkpoint worker', () => {
  it('copies the WAL into the database from its own thread, so the writer reuses a bounded WAL', async () => {
    const path = join(dir, 'bulk.db');
    const { db, writeMegabyte } = openBulk(path);
    let autocheckpoint = -1;
    const checkpointer = startCheckpointer({
      path,
      intervalMs: 60_000,
      setAutocheckpoint: (pages) => {
        autocheckpoint = pages;
        db.pragma(`wal_autocheckpoint = ${pages}`);
      },
    });
    try {
      expect(autocheckpoint).toBe(FALLBACK_AUTOCHECKPOINT_PAGES);
      for (let round = 0; round < 6; round++) {
        for (let i = 0; i < 8; i++) writeMegabyte();
        const result = await checkpointer.checkpoint();
        expect(result.walFrames).toBeGreaterThan(0);
        expect(result.checkpointedFrames).toBe(result.walFrames);
      }
      // 48 MB written; SQLite's own threshold (4 MB at 4 KiB pages) was lifted, so without the
      // worker the WAL would hold all 48 MB. Checkpointed every 8 MB, it is rewound and reused.
      expect(walBytes(path)).toBeLessThan(12 * 2 ** 20);
      const count = db.prepare('SELECT count(*) AS n FROM blobs').get() as { n: number };
      expect(count.n).toBe(48);
    } finally {
      await checkpointer.close();
      db.close();
    }
  });

  it('checkpoints on its timer after writes, with nothing asked', async () => {
    const path = join(dir, 'timer.db');
    const { db, writeMegabyte } = openBulk(path);
    const checkpointer = startCheckpointer({
      path,
      intervalMs: 20,
      setAutocheckpoint: (pages) => db.pragma(`wal_autocheckpoint = ${pages}`),
    });
    try {
      for (let i = 0; i < 4; i++) writeMegabyte();
      checkpointer.noteWrite();
      const before = statSync(path).size;
      const target = before + 4 * 2 ** 20;
      // A wait, not a bound: the worker thread may start slowly on a loaded machine.
      const deadline = Date.now() + 30_000;
      while (statSync(path).size < target && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      // The database file grew by the checkpointed pages, written by the worker, not by this thread.
      expect(statSync(path).size).toBeGreaterThanOrEqual(target);
    } finally {
      await checkpointer.close();
      db.close();
    }
  });

  it('closes quietly when closed before the worker could open a database that is gone', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      // The worker's open fails after close() was called: a lost race, not a worker to warn about.
      const checkpointer = startCheckpointer({ path: join(dir, 'gone', 'db.sqlite'), setAutocheckpoint: () => undefined });
      await checkpointer.close();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(warnings.filter((message) => message.includes('checkpoint'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('refuses requests after close and does not keep the process alive', async () => {
    const path = join(dir, 'closed.db');
    const { db } = openBulk(path);
    const checkpointer = startCheckpointer({ path, setAutocheckpoint: (pages) => db.pragma(`wal_autocheckpoint = ${pages}`) });
    await checkpointer.close();
    await checkpointer.close();
    await expect(checkpointer.checkpoint()).rejects.toThrow(/closed/);
    db.close();
  });

  it('falls back to SQLite checkpoints, with a warning, when the worker cannot open the database', async () => {
    const path = join(dir, 'missing', 'nothing.db');
    const settings: number[] = [];
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      const checkpointer = startCheckpointer({ path, setAutocheckpoint: (pages) => settings.push(pages) });
      await expect(checkpointer.checkpoint()).rejects.toThrow();
      // The fallback follows the worker's exit event: waited for, however late it comes.
      await vi.waitFor(
        () => {
          expect(settings).toEqual([FALLBACK_AUTOCHECKPOINT_PAGES, 1000]);
          expect(warnings.join('\n')).toMatch(/checkpoint worker stopped/);
        },
        { timeout: 30_000, interval: 20 },
      );
      await checkpointer.close();
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('the SQLite store with the checkpoint worker', () => {
  it('refuses an unknown `checkpoints` setting before opening anything', () => {
    const path = join(dir, 'refused.db');
    expect(() => sqliteStore({ path, checkpoints: 'later' as 'inline' })).toThrow(/checkpoints/);
    expect(existsSync(path)).toBe(false);
  });

  it('keeps every write, and close leaves no WAL behind', async () => {
    const path = join(dir, 'store.db');
    const store = sqliteStore({ path });
    const datastore = makeDatastore();
    await store.createDatastore(datastore);
    for (let d = 0; d < 20; d++) {
      const source = makeDatasource(datastore.id, { id: `source-${d}` });
      await store.createDatasource(source);
      await store.replaceChunks(source.id, makeChunks(source, samplePassages(50, d), { dimensions: 384 }));
    }
    expect(await store.countChunks(datastore.id)).toBe(1000);
    await store.close();
    expect(existsSync(`${path}-wal`)).toBe(false);

    const reopened = sqliteStore({ path });
    try {
      expect(await reopened.countChunks(datastore.id)).toBe(1000);
    } finally {
      await reopened.close();
    }
  });

  const built = resolve(fileURLToPath(import.meta.url), '../../../../dist/adapters/sqlite/index.js');
  const source = resolve(fileURLToPath(import.meta.url), '../../../../adapters/sqlite/checkpointer.ts');
  const compiled = resolve(built, '../checkpointer.js');
  const fresh = existsSync(built) && existsSync(compiled) && statSync(compiled).mtimeMs >= statSync(source).mtimeMs;
  if (!fresh) console.log('skipping the store-close process test: dist/ is missing or older than adapters/sqlite (run npm run build)');
  it.skipIf(!fresh)('lets a script that awaits close() run to its end (the idle worker is unref-ed, a closing one is not)', () => {
    const path = join(dir, 'script.db');
    const script = `
      const { sqliteStore } = await import(${JSON.stringify(built)});
      const store = sqliteStore({ path: ${JSON.stringify(path)} });
      await store.createDatastore({ id: 'ds', ownerId: null, name: 'n', description: '', embeddingModel: 'm', embeddingDimensions: 8, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' });
      await store.close();
      console.log('after close');
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(child.stderr).toBe('');
    expect(child.stdout.trim()).toBe('after close');
    expect(child.status).toBe(0);
    expect(existsSync(`${path}-wal`)).toBe(false);
  });
});
