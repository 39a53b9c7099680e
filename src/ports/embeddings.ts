import type { SpecificationVersion } from './specification.js';

/** What the text is for: some models embed queries and documents differently. */
export type EmbeddingPurpose = 'document' | 'query';

export interface EmbedOptions {
  purpose: EmbeddingPurpose;
  signal?: AbortSignal;
}

export interface EmbeddingUsage {
  /** Input tokens billed or counted for the call. */
  tokens: number;
}

export interface EmbeddingResult {
  /** One vector per input text, in input order, each of length `dimensions`. */
  vectors: Float32Array[];
  usage: EmbeddingUsage;
}

/**
 * Turns text into vectors. Implementations must be deterministic for a given `model` so stored
 * vectors stay comparable with new query vectors.
 */
export interface Embeddings {
  /** The port contract this adapter implements; `createRagdesk` accepts only `'v1'`. */
  readonly specificationVersion: SpecificationVersion;
  /** Stable model id recorded with every datastore, e.g. `local-hash-v1` or `text-embedding-3-small`. */
  readonly model: string;
  readonly dimensions: number;
  /** The core never passes more texts than this in one call. */
  readonly maxBatchSize: number;
  /**
   * How much hybrid retrieval trusts this embedder's ranking relative to bm25 (the weight of its
   * scaled scores in the fusion; bm25 has weight 1). Omitted means 1. An embedder built from word features, like
   * the offline one, ranks much like bm25 but less well, and says so with a lower weight.
   */
  readonly fusionWeight?: number;
  embed(texts: readonly string[], options: EmbedOptions): Promise<EmbeddingResult>;
}
