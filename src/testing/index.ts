/**
 * Conformance suites for third-party adapters (`ragdesk/testing`). They run on vitest, which is an
 * optional peer dependency: install it in the project that runs the suites.
 */
export {
  describeAccountStoreConformance,
  describeRetrievalStoreConformance,
  describeStoreConformance,
  type StoreHarness,
} from './store-conformance.js';
export { describeVectorIndexConformance, InMemoryIndexSource, openSettled, type VectorIndexHarness } from './vector-index-conformance.js';
export * from './fixtures.js';
export { seededRandom, clusteredVectors } from './random.js';
export { describeChatModelConformance, type ChatModelHarness } from './chat-model-conformance.js';
export { describeEmbeddingsConformance, type EmbeddingsHarness } from './embeddings-conformance.js';
export { describeRerankerConformance, type RerankerHarness } from './reranker-conformance.js';
