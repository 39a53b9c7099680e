import type { AccountStore } from '../../src/ports/store.js';
import { guardedMethods } from '../kit/guarded-methods.js';
import { agentQueries } from './agent-key-usage-queries.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { uploadQueries } from './upload-queries.js';

/**
 * The `AccountStore` port on SQLite: agents, conversations and messages, API keys, usage counters
 * and upload links, each method one synchronous statement or transaction of the query modules.
 */
export function sqliteAccountStore(connection: SqliteConnection): AccountStore {
  let closed = false;
  connection.retain();
  return guardedMethods<AccountStore>(
    {
      name: 'sqlite',
      specificationVersion: 'v1',
      ...agentQueries(connection.db),
      ...uploadQueries(connection.db),
      async close() {
        if (closed) return;
        closed = true;
        await connection.release();
      },
    },
    connection.guard(() => closed),
  );
}
