import { seededRandom } from '../../src/testing/random.js';
import type { Embeddings } from '../../src/ports/embeddings.js';

/** The same seeded PRNG as the conformance suites: reproducible benchmark data. */
export const seeded = seededRandom;

/** A standard normal sample (Box-Muller) from a uniform PRNG. */
export function gaussian(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** Scales a vector to unit length in place (a zero vector stays zero). */
export function normalise(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) / norm;
  return vector;
}

export interface SyntheticCorpus {
  texts: string[];
  vectors: Float32Array[];
  clusterOf: number[];
  queries: { text: string; vector: Float32Array }[];
}

/**
 * Clustered unit vectors (uniform random vectors are HNSW's worst case and unlike real embeddings)
 * with matching text: each cluster draws most words from its own topic vocabulary, so bm25 and
 * vector search agree on what is relevant, as they would on real documents.
 */
export function syntheticCorpus(options: {
  count: number;
  dimensions: number;
  clusters: number;
  queries: number;
  seed: number;
}): SyntheticCorpus {
  const random = seeded(options.seed);
  const vocabulary = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}x${Math.floor(random() * 1e6).toString(36)}`);
  const centers = Array.from({ length: options.clusters }, () =>
    normalise(Float32Array.from({ length: options.dimensions }, () => gaussian(random))),
  );
  const topics = centers.map(() => Array.from({ length: 60 }, () => vocabulary[Math.floor(random() * vocabulary.length)] as string));
  const point = (cluster: number, spread: number) => {
    const center = centers[cluster] as Float32Array;
    return normalise(Float32Array.from(center, (value) => value + gaussian(random) * spread));
  };
  const words = (cluster: number, count: number) =>
    Array.from({ length: count }, () =>
      random() < 0.7 ? (topics[cluster] as string[])[Math.floor(random() * 60)] : vocabulary[Math.floor(random() * vocabulary.length)],
    ).join(' ');
  const texts: string[] = [];
  const vectors: Float32Array[] = [];
  const clusterOf: number[] = [];
  for (let i = 0; i < options.count; i++) {
    const cluster = Math.floor(random() * options.clusters);
    clusterOf.push(cluster);
    texts.push(`doc ${i} ${words(cluster, 40)}`);
    vectors.push(point(cluster, 0.08));
  }
  const queries = Array.from({ length: options.queries }, () => {
    const cluster = Math.floor(random() * options.clusters);
    return { text: words(cluster, 6), vector: point(cluster, 0.08) };
  });
  return { texts, vectors, clusterOf, queries };
}

/**
 * An Embeddings adapter that answers with vectors computed in advance, so a benchmark measures the
 * store and index rather than an embedding model.
 */
export function precomputedEmbeddings(model: string, dimensions: number, table: Map<string, Float32Array>): Embeddings {
  return {
    model,
    specificationVersion: 'v1',
    dimensions,
    maxBatchSize: 4096,
    async embed(texts) {
      const vectors = texts.map((text) => {
        const vector = table.get(text);
        if (!vector) throw new Error(`no precomputed vector for ${JSON.stringify(text.slice(0, 40))}`);
        return vector;
      });
      return { vectors, usage: { tokens: 0 } };
    },
  };
}

/** Exact top-k by dot product (vectors are unit length, so this is cosine). */
export function exactTopK(vectors: readonly Float32Array[], query: Float32Array, k: number): number[] {
  const best: { index: number; score: number }[] = [];
  vectors.forEach((vector, index) => {
    let score = 0;
    for (let i = 0; i < vector.length; i++) score += (vector[i] as number) * (query[i] as number);
    if (best.length < k || score > (best[best.length - 1] as { score: number }).score) {
      best.push({ index, score });
      best.sort((a, b) => b.score - a.score);
      if (best.length > k) best.pop();
    }
  });
  return best.map((entry) => entry.index);
}
