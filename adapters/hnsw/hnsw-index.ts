import { notFound, RagdeskError } from '../../src/errors.js';
import { KeyedMutex } from '../../src/util/keyed-mutex.js';
import type { IndexCollection, IndexSource, OpenResult, ScoredId, VectorIndex } from '../../src/ports/index.js';
import type { CollectionIdentity } from './collection/collection.js';
import { search } from './graph/filtered-search.js';
import { CollectionHandle, type SerialQueue } from './collection/handle.js';
import { GraphThread } from './graph/graph-thread.js';
import { build, type Loaded, loadOrBuild, settleLoad } from './files/loading.js';
import { type HnswIndexOptions, resolveOptions } from './options.js';
import { collectionDirectory, removeCollectionDirectory } from './files/persistence.js';
import { checkCollection, checkEntriesYielding, checkIds, checkSequence, checkTopK, checkVector } from '../kit/vector-index-input.js';
import { nextTurn } from '../../src/util/next-turn.js';

/**
 * Entries labelled and queued for the graph thread per turn of the event loop: the labels, the
 * filter attributes and one copy of the vectors, ~1-2 ms for 1,024 entries at 384 dimensions.
 */
const UPSERT_SLICE_ENTRIES = 1024;

/** The hnsw `VectorIndex`, and what only it can tell. */
export interface HnswIndex extends VectorIndex {
  /**
   * Resolves once every vector upserted so far is in its graph. Queries never wait for this (they
   * scan the vectors still queued exactly); it is for callers timing a build, and for tests.
   */
  indexed(): Promise<void>;
  /** Always present here: the cosines come from the graph in one native call (graph-thread.ts). */
  similarities(datastoreId: string, vector: Float32Array, ids: readonly string[]): Promise<ScoredId[]>;
}

/**
 * `VectorIndex` on hnswlib (cosine space, through ragdesk's own binding, native-graph.ts), one graph
 * and one directory per datastore under `dir`. The graphs are changed on a worker thread of their
 * own (graph-thread.ts): inserts run there while the main thread goes on, and searches run on the
 * calling thread against the same graphs. Changes are kept
 * in memory and written by `flush`, `close`, an idle timer (`flushAfterMs`) or a change count
 * (`flushAfterChanges`); a crash before a write leaves a header older than the store, which `open`
 * detects and answers with a rebuild from the source.
 *
 * One instance per directory: two processes writing the same directory are not coordinated.
 */
export function hnswIndex(options: HnswIndexOptions): HnswIndex {
  const settings = resolveOptions(options);
  const collections = new Map<string, CollectionHandle>();
  // One queue per datastore orders open, mutations, flushes and drop; it outlives the collection.
  // Queries skip it: they see the graph as after the ops sent before them (graph-thread.ts).
  const mutex = new KeyedMutex();
  const thread = new GraphThread(settings.insertThreads);
  /** Collections answering queries while their vectors still arrive: the end of that load. */
  const loading = new Map<string, Promise<unknown>>();
  let closing: Promise<void> | undefined;

  function queueOf(datastoreId: string): SerialQueue {
    return { run: (task) => mutex.run(datastoreId, task) };
  }

  function live(): void {
    if (closing) throw new RagdeskError('closed', 'hnsw index is closed');
  }

  function opened(datastoreId: string): CollectionHandle {
    live();
    const handle = collections.get(datastoreId);
    if (!handle) throw notFound('index collection', datastoreId);
    return handle;
  }

  /** Inside a queued task: the collection may have been dropped or replaced while the task waited. */
  function stillOpen(datastoreId: string, expected: CollectionHandle): CollectionHandle {
    if (collections.get(datastoreId) !== expected || expected.isReleased) throw notFound('index collection', datastoreId);
    return expected;
  }

  async function reopen(current: CollectionHandle, identity: CollectionIdentity, source: IndexSource): Promise<Loaded> {
    const { model, dimensions } = current.state.identity;
    if (model !== identity.model || dimensions !== identity.dimensions) {
      return build(identity, current.directory, source, settings, thread, 'model_changed');
    }
    if ((await source.sequence()) === current.state.sequence) return { state: current.state, result: { rebuilt: false } };
    return build(identity, current.directory, source, settings, thread, 'stale');
  }

  return {
    name: 'hnsw',
    specificationVersion: 'v1',

    async open(collection: IndexCollection, source: IndexSource): Promise<OpenResult> {
      live();
      checkCollection(collection);
      const { datastoreId, model, dimensions } = collection;
      const identity: CollectionIdentity = { datastoreId, model, dimensions };
      const queue = queueOf(datastoreId);
      thread.warm();
      // A restored collection answers queries before its vectors are all back: open answers then,
      // and the rest of the load keeps the datastore's queue (its writes wait) until it is over.
      let searchable: (result: OpenResult) => void = () => undefined;
      const answered = new Promise<OpenResult>((resolve) => (searchable = resolve));
      const opened = queue.run(async () => {
        live();
        const current = collections.get(datastoreId);
        const directory = collectionDirectory(settings.dir, datastoreId);
        const loaded = current ? await reopen(current, identity, source) : await loadOrBuild(identity, directory, source, settings, thread);
        if (current?.state === loaded.state) return loaded.result;
        current?.release();
        const handle = new CollectionHandle(loaded.state, directory, queue, settings);
        collections.set(datastoreId, handle);
        if (!loaded.state.isFilling) return loaded.result;
        const settling = settleLoad(loaded, identity, directory, source, settings, thread);
        loading.set(datastoreId, settling);
        searchable({ ...loaded.result, ready: settling.then((settled) => settled.result) });
        try {
          const settled = await settling;
          if (settled.state === loaded.state) return loaded.result;
          handle.release();
          collections.set(datastoreId, new CollectionHandle(settled.state, directory, queue, settings));
          return settled.result;
        } catch (error) {
          handle.release();
          collections.delete(datastoreId);
          throw error;
        } finally {
          loading.delete(datastoreId);
        }
      });
      return Promise.race([answered, opened]);
    },

    async upsert(datastoreId, entries, sequence) {
      const handle = opened(datastoreId);
      await checkEntriesYielding(entries, handle.state.identity.dimensions);
      checkSequence(sequence);
      // Labels are given and vectors queued in slices, each a short turn; the inserts run on the
      // graph thread, and each slice waits while its queue is long (graph-thread.ts). Until the last
      // slice is queued the collection claims no store sequence (-1), so a flush in between could
      // only ever be read back as stale.
      let next = 0;
      do {
        await queueOf(datastoreId).run(() => {
          const { state } = stillOpen(datastoreId, handle);
          const slice = entries.slice(next, next + UPSERT_SLICE_ENTRIES);
          return handle.mutate(
            () => {
              const changes = state.upsert(slice);
              next += slice.length;
              return changes;
            },
            () => (next >= entries.length ? sequence : -1),
          );
        });
        await handle.state.room();
        if (next < entries.length) await nextTurn();
      } while (next < entries.length);
    },

    async remove(datastoreId, ids, sequence) {
      const handle = opened(datastoreId);
      checkIds(ids);
      checkSequence(sequence);
      await queueOf(datastoreId).run(() => {
        const { state } = stillOpen(datastoreId, handle);
        return handle.mutate(() => state.remove(ids), sequence);
      });
    },

    async query(datastoreId, query) {
      const { state } = opened(datastoreId);
      checkVector(query.vector, state.identity.dimensions, 'vector');
      checkTopK(query.topK);
      const settling = loading.get(datastoreId);
      try {
        return await search(state, query, settings);
      } catch (error) {
        // The collection being loaded did not match the store and was rebuilt: ask the new one.
        if (settling === undefined) throw error;
        await settling;
        return await search(opened(datastoreId).state, query, settings);
      }
    },

    async similarities(datastoreId, vector, ids) {
      live();
      const handle = collections.get(datastoreId);
      if (!handle) return [];
      checkVector(vector, handle.state.identity.dimensions, 'vector');
      checkIds(ids);
      return handle.state.similarities(vector, ids);
    },

    async count(datastoreId) {
      return opened(datastoreId).state.count;
    },

    indexed() {
      return thread.indexed();
    },

    async flush(datastoreId) {
      live();
      const targets = datastoreId === undefined ? [...collections.entries()] : [[datastoreId, opened(datastoreId)] as const];
      await Promise.all(targets.map(([id, handle]) => queueOf(id).run(() => handle.persist())));
    },

    async drop(datastoreId) {
      live();
      await queueOf(datastoreId).run(async () => {
        collections.get(datastoreId)?.release();
        collections.delete(datastoreId);
        await removeCollectionDirectory(collectionDirectory(settings.dir, datastoreId));
      });
    },

    close() {
      closing ??= (async () => {
        const results = await Promise.allSettled(
          [...collections.entries()].map(([datastoreId, handle]) =>
            queueOf(datastoreId).run(async () => {
              try {
                await handle.persist();
              } finally {
                handle.release();
              }
            }),
          ),
        );
        collections.clear();
        await thread.close();
        const failure = results.find((result) => result.status === 'rejected');
        if (failure) throw failure.reason;
      })();
      return closing;
    },
  };
}
