/** `ragdesk/local`: the offline, deterministic embedder used when no embedding API is configured. */
export { localEmbeddings, type LocalEmbeddingsOptions } from './local-embeddings.js';
export { localAnswerer, NOTHING_FOUND, type LocalAnswererOptions } from './extractive-answerer.js';
