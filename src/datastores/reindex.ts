import type { RagdeskContext } from '../context.js';
import type { ChunkRecord, DatastoreRecord } from '../ports/records.js';
import { nowIso } from '../util/ids.js';
import { assertDimensions } from './embed-chunks.js';

/**
 * Re-embeds every chunk of a datastore with the current embedder. The datastore record names the
 * new model only once every chunk carries a new vector: a crash midway leaves the old model
 * recorded, so the mismatch is still reported and running reindex again finishes the job.
 */
export async function reindexDatastore(context: RagdeskContext, datastore: DatastoreRecord): Promise<{ chunks: number }> {
  const { retrieval: store, embeddings, index } = context;
  const result = await context.writes.run(datastore.id, async () => {
    let total = 0;
    for (const datasource of await store.listDatasources(datastore.id)) {
      const chunks = await store.listChunks(datasource.id);
      const renewed: ChunkRecord[] = [];
      for (let start = 0; start < chunks.length; start += Math.max(1, embeddings.maxBatchSize)) {
        const batch = chunks.slice(start, start + Math.max(1, embeddings.maxBatchSize));
        const { vectors } = await embeddings.embed(
          batch.map((chunk) => chunk.text),
          { purpose: 'document' },
        );
        batch.forEach((chunk, i) => {
          const vector = vectors[i] as Float32Array;
          assertDimensions(vector, embeddings);
          renewed.push({ ...chunk, vector });
        });
      }
      await store.replaceChunks(datasource.id, renewed);
      total += renewed.length;
    }
    await index.drop(datastore.id);
    context.forgetIndex(datastore.id);
    const updated = await store.updateDatastore(datastore.id, {
      embeddingModel: embeddings.model,
      embeddingDimensions: embeddings.dimensions,
      updatedAt: nowIso(),
    });
    return { chunks: total, updated };
  });
  // Outside the write lock: opening an index takes it.
  if (result.updated) await context.ensureIndex(result.updated);
  return { chunks: result.chunks };
}
