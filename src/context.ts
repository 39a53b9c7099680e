import { setMaxListeners } from 'node:events';
import { notFound, RagdeskError } from './errors.js';
import type { Embeddings } from './ports/embeddings.js';
import type { Reranker } from './ports/reranker.js';
import type { FileLoading } from './ports/loader.js';
import type { WebLoader } from './ports/web-loader.js';
import type { AccountStore, RetrievalStore } from './ports/store.js';
import type { OpenResult, VectorIndex } from './ports/vector-index.js';
import type { Tokenizer } from './ingest/tokenizer.js';
import { KeyedMutex } from './util/keyed-mutex.js';
import { indexSource } from './datastores/index-source.js';
import type { UsageLimits } from './datasources/usage-limits.js';

export interface ChunkingOptions {
  /** Tokens per chunk (default 512). */
  chunkSize: number;
  /** Tokens repeated from the end of the previous chunk (default 64). */
  overlap: number;
  tokenizer?: Tokenizer;
}

/**
 * What the services of one ragdesk instance share. Internal: built by `createRagdesk`, never a
 * global, so two instances in one process stay independent.
 */
export class RagdeskContext {
  /** Serialises chunk writes per datastore so the index sees them in store order. */
  readonly writes = new KeyedMutex();
  private readonly openedIndexes = new Map<string, Promise<void>>();
  /** Per datastore: the end of its collection's loading, which may outlast `openedIndexes` (see openIndex). */
  private readonly loadingIndexes = new Map<string, Promise<void>>();
  private closed = false;
  private closing: Promise<void> | undefined;
  /** Runs before the store closes (the job runner stops there). */
  private readonly closers: (() => Promise<void>)[] = [];
  /** Public calls in progress (see `operation`); close waits for them. */
  private readonly operations = new Set<Promise<unknown>>();
  private readonly shutdown = new AbortController();
  /** The clock upload links expire by (`uploads.now`, a test seam); the query flow checks uploads with it too. */
  uploadClock: () => Date = () => new Date();

  constructor(
    /** Datastores, datasources, jobs, chunks, lexical search. */
    readonly retrieval: RetrievalStore,
    /** Agents, conversations, keys, usage, upload links. */
    readonly accounts: AccountStore,
    readonly index: VectorIndex,
    readonly embeddings: Embeddings,
    readonly chunking: ChunkingOptions,
    readonly files?: FileLoading,
    readonly web?: WebLoader,
    readonly usage: UsageLimits = {},
    readonly reranker?: Reranker,
  ) {
    // Every model call in flight listens here (and stops listening when done), so a server with
    // more than 10 concurrent queries is normal, not the leak Node's default warning suspects.
    setMaxListeners(0, this.shutdown.signal);
  }

  onClose(closer: () => Promise<void>): void {
    this.closers.push(closer);
  }

  assertOpen(): void {
    if (this.closed) throw new RagdeskError('closed', 'This ragdesk instance is closed');
  }

  /** True once `close()` began. */
  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Fires when `close()` begins. Model calls (agent queries and streams) listen to it: their time
   * is not bounded by us, so close cancels them instead of waiting.
   */
  get closeSignal(): AbortSignal {
    return this.shutdown.signal;
  }

  /**
   * Runs a public call that writes in several steps (upsert, delete, an agent's answer): refused
   * with `closed` once close began, and awaited by close, so closing never cuts one in half.
   */
  operation<T>(run: () => Promise<T>): Promise<T> {
    try {
      this.assertOpen();
    } catch (error) {
      return Promise.reject(error);
    }
    let promise: Promise<T>;
    try {
      promise = run();
    } catch (error) {
      return Promise.reject(error);
    }
    const settled = promise.then(
      () => undefined,
      () => undefined,
    );
    this.operations.add(settled);
    void settled.then(() => this.operations.delete(settled));
    return promise;
  }

  /**
   * Opens the datastore's vector collection once; the index rebuilds itself from the store when its
   * files are missing, stale or corrupt.
   */
  ensureIndex(datastore: { id: string; embeddingDimensions: number; embeddingModel: string }): Promise<void> {
    let opening = this.openedIndexes.get(datastore.id);
    if (!opening) {
      opening = this.openIndex(datastore);
      this.openedIndexes.set(datastore.id, opening);
      opening.catch(() => this.openedIndexes.delete(datastore.id));
    }
    return opening;
  }

  /** Forgets an opened collection (after a drop or a reindex) so the next use opens it again. */
  forgetIndex(datastoreId: string): void {
    this.openedIndexes.delete(datastoreId);
  }

  /**
   * Resolves once the collection answers queries. An index may answer its `open` while it still
   * reads the store (`OpenResult.ready`): the write lock is held until it is done, so no write
   * changes the chunks under it, and a load that fails then is forgotten so the next use reopens.
   */
  private openIndex(datastore: { id: string; embeddingDimensions: number; embeddingModel: string }): Promise<void> {
    const opening = new Promise<void>((searchable, failed) => {
      const loading = this.writes.run(datastore.id, async () => {
        const result = await this.openIndexLocked(datastore);
        searchable();
        await result.ready;
      });
      this.loadingIndexes.set(
        datastore.id,
        loading.then(
          () => undefined,
          () => undefined,
        ),
      );
      loading.catch((error: unknown) => {
        if (this.openedIndexes.get(datastore.id) === opening) this.openedIndexes.delete(datastore.id);
        failed(error);
      });
    });
    return opening;
  }

  /**
   * `ensureIndex`, then the rest of its loading (`OpenResult.ready`): for a caller that wants the
   * collection whole, such as `datastore.load()` before a server takes visitors.
   */
  async ensureIndexLoaded(datastore: { id: string; embeddingDimensions: number; embeddingModel: string }): Promise<void> {
    await this.ensureIndex(datastore);
    await this.loadingIndexes.get(datastore.id);
  }

  /**
   * Under the datastore's write lock and only while it exists: deleting a datastore holds the same
   * lock, so an open racing a delete (an upsert or a sync that read the record just before) can
   * never write index files for a datastore that is gone, files nothing would ever remove.
   */
  private async openIndexLocked(datastore: { id: string; embeddingDimensions: number; embeddingModel: string }): Promise<OpenResult> {
    const store = this.retrieval;
    if (!(await store.getDatastore(datastore.id))) throw notFound('datastore', datastore.id);
    return this.index.open(
      { datastoreId: datastore.id, dimensions: datastore.embeddingDimensions, model: datastore.embeddingModel },
      indexSource(store, datastore.id),
    );
  }

  /**
   * Stops accepting calls, cancels model calls, lets calls in progress finish, stops the job
   * runner (running syncs are parked as `pending` and resume on the next open), then flushes the
   * index and closes both stores (once, when one object serves as both). Concurrent and repeated calls share one shutdown.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      this.shutdown.abort(new RagdeskError('closed', 'This ragdesk instance is closing'));
      while (this.operations.size > 0) await Promise.all([...this.operations]);
      for (const closer of this.closers) await closer();
      await this.writes.idle();
      await this.index.close();
      await this.accounts.close();
      if ((this.retrieval as object) !== this.accounts) await this.retrieval.close();
    })();
    return this.closing;
  }
}
