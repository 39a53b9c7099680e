import type { Store, StorePair } from '../../src/ports/store.js';

/**
 * Both stores of a pair as one `Store`, for the deprecated `store` option of `createRagdesk`: the
 * object holds the two stores' own methods (no wrappers; the adapters' methods do not use `this`),
 * and its `close` closes both.
 */
export function joinedStore({ retrieval, accounts }: StorePair): Store {
  return {
    ...retrieval,
    ...accounts,
    name: retrieval.name,
    async close() {
      await Promise.all([accounts.close(), retrieval.close()]);
    },
  };
}
