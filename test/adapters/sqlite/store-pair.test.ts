/**
 * `sqliteStores`: the retrieval store and the account store over one connection to one file. Each
 * closes its own half; the connection (whose close folds the WAL back and removes it) goes with
 * the second.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sqliteStore, sqliteStores } from '../../../adapters/sqlite/index.js';
import { makeAgent, makeDatastore } from '../../../src/testing/fixtures.js';

let dir: string;
let path: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ragdesk-pair-'));
  path = join(dir, 'ragdesk.db');
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Rows of a table, read through a separate read-only connection. */
function rows(table: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS count FROM ${table}`).get() as { count: number }).count;
  } finally {
    db.close();
  }
}

describe('sqliteStores', () => {
  it('writes both sides into one file', async () => {
    const { retrieval, accounts } = sqliteStores({ path });
    const datastore = makeDatastore();
    await retrieval.createDatastore(datastore);
    await accounts.createAgent(makeAgent({ datastoreIds: [datastore.id] }));
    expect([rows('datastores'), rows('agents')]).toEqual([1, 1]);
    expect([retrieval.name, accounts.name, retrieval.specificationVersion, accounts.specificationVersion]).toEqual([
      'sqlite',
      'sqlite',
      'v1',
      'v1',
    ]);
    await retrieval.close();
    await accounts.close();
  });

  it('keeps the connection open until both stores are closed, whichever closes first', async () => {
    for (const first of ['retrieval', 'accounts'] as const) {
      const stores = sqliteStores({ path });
      const second = first === 'retrieval' ? 'accounts' : 'retrieval';
      await stores.retrieval.createDatastore(makeDatastore({ id: `ds-${first}` }));
      await stores[first].close();
      expect(existsSync(`${path}-wal`), `${first} closed first`).toBe(true);
      await expect(first === 'retrieval' ? stores.retrieval.listDatastores() : stores.accounts.listAgents()).rejects.toMatchObject({
        code: 'closed',
      });
      // The other side still reads and writes.
      if (second === 'accounts') await stores.accounts.createAgent(makeAgent({ id: `agent-${first}` }));
      else expect(await stores.retrieval.listDatastores()).not.toHaveLength(0);
      await stores[first].close();
      expect(existsSync(`${path}-wal`)).toBe(true);
      await stores[second].close();
      // The last close ran the main connection's: the WAL was folded back and removed.
      expect(existsSync(`${path}-wal`)).toBe(false);
    }
  });

  it("leaves a database handed over open: it is its owner's to close", async () => {
    const db = new Database(path);
    const { retrieval, accounts } = sqliteStores({ database: db });
    await retrieval.createDatastore(makeDatastore());
    await retrieval.close();
    await accounts.close();
    expect((db.prepare('SELECT count(*) AS count FROM datastores').get() as { count: number }).count).toBe(1);
    db.close();
  });

  it('the deprecated sqliteStore is both stores in one object, and its close closes both', async () => {
    const store = sqliteStore({ path });
    await store.createDatastore(makeDatastore());
    await store.createAgent(makeAgent());
    await store.close();
    await store.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
    await expect(store.listAgents()).rejects.toMatchObject({ code: 'closed' });
    await expect(store.listDatastores()).rejects.toMatchObject({ code: 'closed' });
    expect([rows('datastores'), rows('agents')]).toEqual([1, 1]);
  });
});
