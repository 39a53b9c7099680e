import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryStore } from '../../adapters/memory/index.js';
import { sqliteStore } from '../../adapters/sqlite/index.js';
import { describeStoreConformance } from '../../src/testing/store-conformance.js';

/** A fresh database file per test; `reopen` and `inspect` work on the latest one. */
function sqliteHarness() {
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
      return sqliteStore({ path: path() });
    },
    async reopen() {
      return sqliteStore({ path: path() });
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

describeStoreConformance('sqlite', sqliteHarness());
describeStoreConformance('memory', { create: async () => memoryStore() });
