import type { ChatModel } from '../ports/chat-model.js';
import type { Embeddings } from '../ports/embeddings.js';
import type { FileLoading } from '../ports/loader.js';
import type { Reranker } from '../ports/reranker.js';
import type { VectorIndex } from '../ports/vector-index.js';
import type { WebLoader } from '../ports/web-loader.js';
import type { PortMethods } from './method-names.js';

export const VECTOR_INDEX_METHODS: PortMethods<VectorIndex> = {
  required: { open: true, upsert: true, remove: true, query: true, count: true, flush: true, drop: true, close: true },
  optional: {},
};

export const EMBEDDINGS_METHODS: PortMethods<Embeddings> = { required: { embed: true }, optional: {} };

export const CHAT_MODEL_METHODS: PortMethods<ChatModel> = {
  required: { generate: true, stream: true },
  optional: { resolveModel: true, models: true },
};

export const FILE_LOADING_METHODS: PortMethods<FileLoading> = { required: { inspect: true, load: true }, optional: { close: true } };

export const WEB_LOADER_METHODS: PortMethods<WebLoader> = {
  required: { loadPage: true, crawlSite: true },
  optional: { fetchFile: true, close: true, loadPageIfChanged: true, recrawlSite: true },
};

export const RERANKER_METHODS: PortMethods<Reranker> = { required: { rerank: true }, optional: {} };
