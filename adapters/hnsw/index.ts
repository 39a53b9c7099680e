/**
 * `ragdesk/hnsw`: the default persistent `VectorIndex`, on hnswlib (ragdesk's own binding). One graph file and one
 * header per datastore under a directory; rebuilt from the Store whenever the files cannot be trusted.
 */
export { hnswIndex, type HnswIndex } from './hnsw-index.js';
export type { HnswIndexOptions } from './options.js';
