/**
 * Deterministic test data. Conformance suites must fail the same way on every machine, so nothing
 * here touches `Math.random`.
 */

/** A seeded PRNG (mulberry32): the same seed always yields the same sequence in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Standard normal samples from a uniform source (Box-Muller). */
function gaussian(random: () => number): () => number {
  return () => {
    const u = 1 - random(); // (0, 1]: log(0) would be -Infinity
    const v = random();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
}

export interface ClusteredVectorsOptions {
  count: number;
  dimensions: number;
  /** Number of cluster centres; vectors are assigned round-robin. */
  clusters: number;
  seed: number;
  /**
   * Standard deviation of the noise around a centre, relative to the centre's per-component scale
   * (default 0.35). Real embeddings are clustered; uniform random vectors are a worst case no ANN
   * index is tuned for, so recall tests use these instead.
   */
  spread?: number;
}

/** Vectors scattered around `clusters` random centres, like embeddings of topical documents. */
export function clusteredVectors(options: ClusteredVectorsOptions): Float32Array[] {
  const { count, dimensions, clusters, seed, spread = 0.35 } = options;
  const normal = gaussian(seededRandom(seed));
  const centres = Array.from({ length: Math.max(1, clusters) }, () => {
    const centre = new Float64Array(dimensions);
    for (let d = 0; d < dimensions; d++) centre[d] = normal();
    return centre;
  });
  const vectors: Float32Array[] = [];
  for (let i = 0; i < count; i++) {
    const centre = centres[i % centres.length] as Float64Array;
    const vector = new Float32Array(dimensions);
    for (let d = 0; d < dimensions; d++) vector[d] = (centre[d] as number) + spread * normal();
    vectors.push(vector);
  }
  return vectors;
}
