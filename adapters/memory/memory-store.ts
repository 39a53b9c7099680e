import type { Store, StorePair } from '../../src/ports/store.js';
import { joinedStore } from '../kit/joined-store.js';
import { memoryAccountStore } from './memory-account-store.js';
import { memoryRetrievalStore } from './memory-retrieval-store.js';

/**
 * Options of {@link memoryStores}. None yet: the interface exists so options can be added without
 * changing the factory's signature.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a public options type with no options yet; adding one later keeps the signature
export interface MemoryStoreOptions {}

/** A retrieval store and an account store held in memory: nothing is persisted. */
export function memoryStores(_options: MemoryStoreOptions = {}): StorePair {
  return { retrieval: memoryRetrievalStore(), accounts: memoryAccountStore() };
}

/**
 * Both memory stores in one object.
 *
 * @deprecated Use {@link memoryStores} and pass `retrieval` and `accounts` to `createRagdesk`.
 */
export function memoryStore(options: MemoryStoreOptions = {}): Store {
  return joinedStore(memoryStores(options));
}
