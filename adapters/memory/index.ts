/**
 * Reference adapters held entirely in memory. They are the oracles of the conformance suites and
 * handy in unit tests; nothing here is persisted.
 */
export { memoryStores, memoryStore, type MemoryStoreOptions } from './memory-store.js';
export { exactIndex, type ExactIndexOptions } from './exact-index.js';
