/** The harness contract of the store conformance suites, and helpers their parts share. */
import { expect } from 'vitest';
import type { StoreLifecycle } from '../ports/store.js';

/** Raw reads through the adapter's own backend, bypassing the Store methods under test. */
interface StoreInspector {
  /** Chunk rows stored for the datasource. */
  chunkRows(datasourceId: string): Promise<number>;
  /** Datasource rows stored for the datastore. */
  datasourceRows?(datastoreId: string): Promise<number>;
  /**
   * Rows in the full-text index, all datastores together (read from the index itself, not from
   * the chunk table), to prove deletes reach the index.
   */
  textIndexRows?(): Promise<number>;
  /** Stored-file rows of the datasource (0 or 1). */
  fileRows?(datasourceId: string): Promise<number>;
  /** Job rows of the datasource. */
  jobRows?(datasourceId: string): Promise<number>;
  /** Status-event rows of the datasource. */
  statusEventRows?(datasourceId: string): Promise<number>;
  /** Conversation rows of the agent. */
  conversationRows?(agentId: string): Promise<number>;
  /** Message rows of the conversation. */
  messageRows?(conversationId: string): Promise<number>;
}

/** How a suite gets stores of type `S` (a `RetrievalStore` or an `AccountStore`). */
export interface StoreHarness<S extends StoreLifecycle> {
  /** A new, empty store. Called before every test. */
  create(): Promise<S>;
  /**
   * A new instance over the data of the store `create` returned last, after the suite closed it.
   * Omit for stores that keep nothing (the persistence tests are then skipped).
   */
  reopen?(): Promise<S>;
  /** Raw checks on the data of the store `create` returned last. */
  inspect?: StoreInspector;
  /** Called after every test, once its stores are closed: remove files and the like. */
  cleanup?(): Promise<void>;
}

/** What the suite's parts share: the store of the running test. */
export interface StoreSuiteContext<S extends StoreLifecycle> {
  harness: StoreHarness<S>;
  /** The store `create` made for the running test. */
  store(): S;
  /** Closes the running test's store and opens it again through `reopen`. */
  reopen(): Promise<S>;
}

/** Expects `promise` to reject with a RagdeskError of this code. */
export async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  await expect(promise).rejects.toMatchObject({ name: 'RagdeskError', code });
}
