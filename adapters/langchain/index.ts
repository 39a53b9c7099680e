/**
 * `ragdesk/langchain`: a LangChain.js retriever over a ragdesk datastore, in process or over the
 * HTTP API. Needs `@langchain/core` (an optional peer dependency). See docs/http.md.
 */
export {
  RagdeskRetriever,
  type QueryableDatastore,
  type RagdeskDocumentMetadata,
  type RagdeskRetrieverOptions,
  type RagdeskRetrieverQuery,
} from './retriever.js';
export type { HttpDatastoreOptions } from './http-datastore.js';
