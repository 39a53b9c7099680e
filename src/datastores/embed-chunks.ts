import { RagdeskError } from '../errors.js';
import type { Embeddings } from '../ports/embeddings.js';
import type { RetrievalStore } from '../ports/store.js';

export interface EmbedChunksResult {
  vectors: Map<string, Float32Array>;
  /** How many texts were sent to the embedder (the rest were reused by hash). */
  embedded: number;
  tokens: number;
}

/**
 * Vectors for every hash, embedding only the texts whose hash has no stored vector yet, in batches
 * of the embedder's limit. Unchanged text is never paid for twice.
 */
export async function embedChunks(
  store: RetrievalStore,
  embeddings: Embeddings,
  datastoreId: string,
  textsByHash: ReadonlyMap<string, string>,
  signal?: AbortSignal,
): Promise<EmbedChunksResult> {
  const hashes = [...textsByHash.keys()];
  const vectors = await store.findVectorsByHash(datastoreId, hashes, embeddings.dimensions);
  const missing = hashes.filter((hash) => !vectors.has(hash));
  let tokens = 0;
  const batchSize = Math.max(1, embeddings.maxBatchSize);
  for (let start = 0; start < missing.length; start += batchSize) {
    const batch = missing.slice(start, start + batchSize);
    const texts = batch.map((hash) => textsByHash.get(hash) ?? '');
    const result = await embeddings.embed(texts, { purpose: 'document', signal });
    if (result.vectors.length !== batch.length) {
      throw new RagdeskError(
        'upstream_failed',
        `Embedder ${embeddings.model} returned ${result.vectors.length} vectors for ${batch.length} texts`,
      );
    }
    result.vectors.forEach((vector, i) => {
      assertDimensions(vector, embeddings);
      vectors.set(batch[i] as string, vector);
    });
    tokens += result.usage.tokens;
  }
  return { vectors, embedded: missing.length, tokens };
}

export function assertDimensions(vector: Float32Array, embeddings: Embeddings): void {
  if (vector.length !== embeddings.dimensions) {
    throw new RagdeskError(
      'upstream_failed',
      `Embedder ${embeddings.model} returned a vector of length ${vector.length}, expected ${embeddings.dimensions}`,
    );
  }
}
