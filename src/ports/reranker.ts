import type { SpecificationVersion } from './specification.js';

/** One passage as a reranker placed it: its position in the input, and its relevance. */
export interface RerankedPassage {
  /** Index into the `passages` given to `rerank`. */
  index: number;
  /** Higher is more relevant; comparable only within one call. */
  score: number;
}

export interface RerankOptions {
  signal?: AbortSignal;
}

/**
 * Orders passages by their relevance to a query: a second stage over the first stage's best
 * candidates (a cross-encoder behind a hosted `/rerank` endpoint, or any scorer that reads the
 * query and the passage together).
 */
export interface Reranker {
  /** The port contract this adapter implements; `createRagdesk` accepts only `'v1'`. */
  readonly specificationVersion: SpecificationVersion;
  /** Stable id of the model, e.g. `cohere:rerank-v3.5`; reported with reranked responses. */
  readonly model: string;
  /**
   * The `min(topN, passages.length)` most relevant passages, best first, each index once. An empty
   * `passages` answers `[]` without a call. Failures are `RagdeskError`s (`upstream_failed`,
   * `upstream_timeout`, `rate_limited`, `aborted`).
   */
  rerank(query: string, passages: readonly string[], topN: number, options?: RerankOptions): Promise<RerankedPassage[]>;
}
