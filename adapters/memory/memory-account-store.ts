import type { AccountStore } from '../../src/ports/store.js';
import { guardedMethods } from '../kit/guarded-methods.js';
import { memoryAgents } from './memory-agents-keys-usage.js';
import { memoryClosedError } from './memory-closed.js';
import { memoryUploads } from './memory-uploads.js';

/**
 * The `AccountStore` contract held in Maps: agents, conversations and messages, API keys, usage
 * counters and upload links, checked before every write so a rejected call changes nothing.
 */
export function memoryAccountStore(): AccountStore {
  let closed = false;
  return guardedMethods<AccountStore>(
    {
      name: 'memory',
      specificationVersion: 'v1',
      ...memoryAgents(),
      ...memoryUploads(),
      async close() {
        closed = true;
      },
    },
    {
      before() {
        if (closed) throw memoryClosedError();
      },
      translate: (error) => error,
    },
  );
}
