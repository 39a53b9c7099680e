import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryStores } from '../../adapters/memory/index.js';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import type { StorePair } from '../../src/ports/store.js';
import { describeAccountStoreConformance, describeRetrievalStoreConformance } from '../../src/testing/store-conformance.js';

/** One store of a pair; the other is closed at once (the database stays open for the one kept). */
async function only<K extends keyof StorePair>(pair: StorePair, side: K): Promise<StorePair[K]> {
  await (side === 'retrieval' ? pair.accounts : pair.retrieval).close();
  return pair[side];
}

/** A fresh database file per test; `reopen` and `inspect` work on the latest one. */
function sqliteHarness<K extends keyof StorePair>(side: K) {
  let dir: string | undefined;
  const path = () => join(dir ?? '', 'store.db');

  /** Auth.js style: read what the store wrote through a separate, read-only connection. */
  function count(sql: string, ...params: string[]): Promise<number> {
    const db = new Database(path(), { readonly: true });
    try {
      return Promise.resolve((db.prepare(sql).get(...params) as { count: number }).count);
    } finally {
      db.close();
    }
  }

  return {
    async create() {
      dir = mkdtempSync(join(tmpdir(), 'ragdesk-store-'));
      return only(sqliteStores({ path: path() }), side);
    },
    async reopen() {
      return only(sqliteStores({ path: path() }), side);
    },
    inspect: {
      chunkRows: (datasourceId: string) => count('SELECT count(*) AS count FROM chunks WHERE datasource_id = ?', datasourceId),
      datasourceRows: (datastoreId: string) => count('SELECT count(*) AS count FROM datasources WHERE datastore_id = ?', datastoreId),
      // No textIndexRows: the lexical index lives in memory (adapters/bm25/lexical-index.ts); the
      // search cases of the suite check that deleted text is no longer found.
      fileRows: (datasourceId: string) => count('SELECT count(*) AS count FROM datasource_files WHERE datasource_id = ?', datasourceId),
      jobRows: (datasourceId: string) => count('SELECT count(*) AS count FROM jobs WHERE datasource_id = ?', datasourceId),
      statusEventRows: (datasourceId: string) => count('SELECT count(*) AS count FROM status_events WHERE datasource_id = ?', datasourceId),
      conversationRows: (agentId: string) => count('SELECT count(*) AS count FROM conversations WHERE agent_id = ?', agentId),
      messageRows: (conversationId: string) => count('SELECT count(*) AS count FROM messages WHERE conversation_id = ?', conversationId),
    },
    async cleanup() {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    },
  };
}

describeRetrievalStoreConformance('sqlite', sqliteHarness('retrieval'));
describeAccountStoreConformance('sqlite', sqliteHarness('accounts'));
describeRetrievalStoreConformance('memory', { create: async () => memoryStores().retrieval });
describeAccountStoreConformance('memory', { create: async () => memoryStores().accounts });
