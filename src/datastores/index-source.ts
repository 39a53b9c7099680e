import type { IndexSource } from '../ports/vector-index.js';
import type { RetrievalStore } from '../ports/store.js';

/** Vectors per page of the store's pass when an index reloads its vectors (see `vectors` below). */
const VECTOR_PAGE = 1024;

/** What a vector index (re)loads a datastore's collection from: the retrieval store, the source of truth. */
export function indexSource(store: RetrievalStore, datastoreId: string): IndexSource {
  return {
    sequence: () => store.chunkSequence(datastoreId),
    entries: async function* () {
      for await (const batch of store.iterateChunks(datastoreId)) {
        yield batch.map((chunk) => ({
          id: chunk.id,
          vector: chunk.vector,
          datasourceId: chunk.datasourceId,
          customId: chunk.customId,
        }));
      }
    },
    // Pages of 1,024 (~4 ms on SQLite at 384 dimensions): an index that answers queries while it
    // reads them (OpenResult.ready) lets one page run between queries.
    vectors: () => store.iterateChunkVectors?.(datastoreId, { batchSize: VECTOR_PAGE }) ?? store.iterateChunks(datastoreId),
    vectorsOf: async (ids) =>
      store.getChunkVectors
        ? store.getChunkVectors(datastoreId, ids)
        : (await store.getChunks(ids)).filter((chunk) => chunk.datastoreId === datastoreId),
  };
}
