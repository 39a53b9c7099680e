export type * from './records.js';
export type * from './store.js';
export type * from './vector-index.js';
export type * from './embeddings.js';
export type * from './chat-model.js';
export type * from './loader.js';
export type * from './web-loader.js';
export type * from './agent-key-usage-records.js';
