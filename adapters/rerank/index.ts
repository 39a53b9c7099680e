/** `ragdesk/rerank`: rerankers for `createRagdesk({ reranker })`. */
export { httpReranker, type HttpRerankerOptions, type RerankProvider } from './http-reranker.js';
