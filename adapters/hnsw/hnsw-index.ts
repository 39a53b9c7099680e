import { notFound, RagdeskError } from '../../src/errors.js';
import { KeyedMutex } from '../../src/util/keyed-mutex.js';
import type { IndexCollection, IndexEntry, IndexSource, OpenResult, VectorIndex } from '../../src/ports/index.js';
import type { CollectionIdentity } from './collection.js';
import { search } from './filtered-search.js';
import { CollectionHandle, type SerialQueue } from './handle.js';
import { build, type Loaded, loadOrBuild } from './loading.js';
import { type HnswIndexOptions, resolveOptions } from './options.js';
import { collectionDirectory, removeCollectionDirectory } from './persistence.js';
import { checkCollection, checkEntriesYielding, checkIds, checkSequence, checkTopK, checkVector } from '../kit/vector-index-input.js';

/**
 * Longest stretch of vector inserts between two yields to the event loop. Time, not a count: one
 * insert costs ~0.3 ms at 384 dimensions and ~3 ms at 1536 on a loaded machine, so a fixed count
 * of 8 made slices of up to 40 ms.
 */
const UPSERT_SLICE_MS = 8;

/**
 * `VectorIndex` on hnswlib-node (`HierarchicalNSW`, cosine space), one graph and one directory per
 * datastore under `dir`. Changes are kept in memory and written by `flush`, `close`, an idle timer
 * (`flushAfterMs`) or a change count (`flushAfterChanges`); a crash before a write leaves a header
 * older than the store, which `open` detects and answers with a rebuild from the source.
 *
 * One instance per directory: two processes writing the same directory are not coordinated.
 */
export function hnswIndex(options: HnswIndexOptions): VectorIndex {
  const settings = resolveOptions(options);
  const collections = new Map<string, CollectionHandle>();
  // One queue per datastore orders open, mutations, flushes and drop; it outlives the collection.
  // Queries are synchronous reads and skip it.
  const mutex = new KeyedMutex();
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
      return build(identity, current.directory, source, settings, 'model_changed');
    }
    if ((await source.sequence()) === current.state.sequence) return { state: current.state, result: { rebuilt: false } };
    return build(identity, current.directory, source, settings, 'stale');
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
      return queue.run(async () => {
        live();
        const current = collections.get(datastoreId);
        const directory = collectionDirectory(settings.dir, datastoreId);
        const loaded = current ? await reopen(current, identity, source) : await loadOrBuild(identity, directory, source, settings);
        if (current?.state === loaded.state) return loaded.result;
        current?.release();
        collections.set(datastoreId, new CollectionHandle(loaded.state, directory, queue, settings));
        return loaded.result;
      });
    },

    async upsert(datastoreId, entries, sequence) {
      const handle = opened(datastoreId);
      await checkEntriesYielding(entries, handle.state.identity.dimensions);
      checkSequence(sequence);
      // addPoint is synchronous native work (milliseconds per vector at efConstruction 200), so a
      // large batch is applied in slices of at most UPSERT_SLICE_MS with a yield between them:
      // queries keep being answered during ingestion. Until the last slice lands the collection
      // claims no store sequence (-1), so a flush in between could only ever be read back as stale.
      let next = 0;
      do {
        await queueOf(datastoreId).run(() => {
          const { state } = stillOpen(datastoreId, handle);
          const start = next;
          const started = performance.now();
          return handle.mutate(
            () => {
              // At least one entry per slice, so a batch always advances.
              while (next < entries.length) {
                state.upsert([entries[next++] as IndexEntry]);
                if (performance.now() - started >= UPSERT_SLICE_MS) break;
              }
              return next - start;
            },
            () => (next >= entries.length ? sequence : -1),
          );
        });
        if (next < entries.length) await new Promise<void>((resolve) => setImmediate(resolve));
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
      return search(state, query, settings);
    },

    async count(datastoreId) {
      return opened(datastoreId).state.count;
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
        const failure = results.find((result) => result.status === 'rejected');
        if (failure) throw failure.reason;
      })();
      return closing;
    },
  };
}
