import type { AccountStore } from '../../src/ports/store.js';
import { guardedMethods, type MethodGuard } from '../kit/guarded-methods.js';
import { agentQueries } from './agent-key-usage-queries.js';
import type { PoolHandle } from './connection.js';
import { uploadQueries } from './upload-queries.js';

/**
 * The `AccountStore` port on Postgres: agents, conversations and messages, API keys, usage
 * counters and upload links, each method one statement or one transaction of the query modules.
 * The schema is migrated by the caller (see `postgresStores`).
 */
export function postgresAccountStore(handle: PoolHandle, schema: string, guardFor: (isClosed: () => boolean) => MethodGuard): AccountStore {
  let closed = false;
  handle.retain();
  return guardedMethods<AccountStore>(
    {
      name: 'postgres',
      specificationVersion: 'v1',
      ...agentQueries(handle.pool, schema),
      ...uploadQueries(handle.pool, schema),
      async close() {
        if (closed) return;
        closed = true;
        await handle.release();
      },
    },
    guardFor(() => closed),
  );
}
