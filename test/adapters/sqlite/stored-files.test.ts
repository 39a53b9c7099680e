import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sqliteStore } from '../../../adapters/sqlite/index.js';
import { PART_BYTES } from '../../../adapters/sqlite/stored-files.js';
import type { Store } from '../../../src/ports/store.js';
import { makeDatasource, makeDatastore } from '../../../src/testing/fixtures.js';

let dir: string;
let path: string;
let store: Store;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ragdesk-files-'));
  path = join(dir, 'store.db');
  store = sqliteStore({ path });
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Bytes that differ at every offset, so a part copied to the wrong place shows. */
function pattern(length: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i += 1) bytes[i] = (i * 31 + seed + (i >> 12)) & 0xff;
  return bytes;
}

async function datasource() {
  const datastore = makeDatastore();
  const source = makeDatasource(datastore, { name: 'big.bin' });
  await store.createDatastore(datastore);
  await store.createDatasource(source);
  return source;
}

function partRows(datasourceId?: string): number {
  const db = new Database(path, { readonly: true });
  try {
    const sql = 'SELECT count(*) AS count FROM datasource_file_parts' + (datasourceId ? ' WHERE datasource_id = ?' : '');
    const statement = db.prepare(sql);
    return (datasourceId ? (statement.get(datasourceId) as { count: number }) : (statement.get() as { count: number })).count;
  } finally {
    db.close();
  }
}

describe('sqliteStore uploaded files in parts', () => {
  it('stores and reads a multi-part file over several event-loop turns', async () => {
    const source = await datasource();
    const bytes = pattern(5 * PART_BYTES + 12_345, 1);
    // One immediate per event-loop turn: one that runs before the call ends means the copy yields.
    let turns = 0;
    let counting = true;
    const tick = (): void => {
      turns += 1;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    try {
      await store.putDatasourceFile(source.id, { bytes, mimeType: 'application/octet-stream', fileName: 'big.bin' });
      const afterPut = turns;
      expect(afterPut).toBeGreaterThan(0);
      const read = await store.getDatasourceFile(source.id);
      expect(turns).toBeGreaterThan(afterPut);
      expect(read?.fileName).toBe('big.bin');
      expect(Buffer.from(read!.bytes).equals(Buffer.from(bytes))).toBe(true);
    } finally {
      counting = false;
    }
    expect(partRows(source.id)).toBe(6);
  });

  it('a replacement removes the parts of the previous file and of unfinished uploads', async () => {
    const source = await datasource();
    await store.putDatasourceFile(source.id, { bytes: pattern(3 * PART_BYTES, 2), mimeType: 'text/plain', fileName: null });
    // What a crash in the middle of an upload leaves: parts of a generation no row names.
    const db = new Database(path);
    db.prepare('INSERT INTO datasource_file_parts (datasource_id, generation, part, bytes) VALUES (?, 7, 0, ?)').run(
      source.id,
      Buffer.alloc(10),
    );
    db.close();
    expect(partRows(source.id)).toBe(4);
    // The leftover does not change what is read.
    expect((await store.getDatasourceFile(source.id))?.bytes.byteLength).toBe(3 * PART_BYTES);

    const small = pattern(100, 3);
    await store.putDatasourceFile(source.id, { bytes: small, mimeType: 'text/plain', fileName: 'small.txt' });
    expect(partRows(source.id)).toBe(1);
    expect(Buffer.from((await store.getDatasourceFile(source.id))!.bytes).equals(Buffer.from(small))).toBe(true);

    await store.putDatasourceFile(source.id, { bytes: new Uint8Array(0), mimeType: 'text/plain', fileName: null });
    expect(partRows(source.id)).toBe(0);
    expect((await store.getDatasourceFile(source.id))?.bytes.byteLength).toBe(0);
  });

  it('a read that overlaps a replacement returns one whole file, old or new', async () => {
    const source = await datasource();
    const first = pattern(4 * PART_BYTES, 4);
    const second = pattern(2 * PART_BYTES + 5, 5);
    await store.putDatasourceFile(source.id, { bytes: first, mimeType: 'text/plain', fileName: null });
    const [read] = await Promise.all([
      store.getDatasourceFile(source.id),
      store.putDatasourceFile(source.id, { bytes: second, mimeType: 'text/plain', fileName: null }),
    ]);
    const got = Buffer.from(read!.bytes);
    expect(got.equals(Buffer.from(first)) || got.equals(Buffer.from(second))).toBe(true);
    expect(Buffer.from((await store.getDatasourceFile(source.id))!.bytes).equals(Buffer.from(second))).toBe(true);
  });

  it('an upload whose datasource is deleted meanwhile fails with not_found and leaves no parts', async () => {
    const source = await datasource();
    const put = store.putDatasourceFile(source.id, { bytes: pattern(4 * PART_BYTES, 6), mimeType: 'text/plain', fileName: null });
    await new Promise((resolve) => setImmediate(resolve));
    await store.deleteDatasource(source.id);
    await expect(put).rejects.toMatchObject({ code: 'not_found' });
    expect(partRows()).toBe(0);
  });

  it('reads a file stored as one blob before parts existed', async () => {
    const source = await datasource();
    const bytes = pattern(2 * PART_BYTES + 777, 7);
    const db = new Database(path);
    db.prepare("INSERT INTO datasource_files (datasource_id, mime_type, file_name, bytes) VALUES (?, 'text/plain', 'old.txt', ?)").run(
      source.id,
      Buffer.from(bytes),
    );
    db.close();
    const read = await store.getDatasourceFile(source.id);
    expect(read?.fileName).toBe('old.txt');
    expect(Buffer.from(read!.bytes).equals(Buffer.from(bytes))).toBe(true);
    // Replaced by a new upload, it moves to parts.
    await store.putDatasourceFile(source.id, { bytes: pattern(10, 8), mimeType: 'text/plain', fileName: null });
    expect((await store.getDatasourceFile(source.id))?.bytes.byteLength).toBe(10);
    expect(partRows(source.id)).toBe(1);
  });
});
