import { Document } from '@langchain/core/documents';
import { BaseRetriever, type BaseRetrieverInput } from '@langchain/core/retrievers';
import { RagdeskError, type DatastoreQueryInput, type DocumentFragment } from '../../src/index.js';
import { queryOverHttp, type HttpDatastoreOptions } from './http-datastore.js';

/** Anything that answers a datastore query in process: a `Datastore` (`await ragdesk.datastores.get(id)`). */
export interface QueryableDatastore {
  query(input: DatastoreQueryInput): Promise<DocumentFragment[]>;
}

/** How each query is run: the datastore query's own settings (`topK` default 5, `mode` default hybrid, `filters`). */
export type RagdeskRetrieverQuery = Omit<DatastoreQueryInput, 'query'>;

export type RagdeskRetrieverOptions = BaseRetrieverInput &
  RagdeskRetrieverQuery &
  ({ datastore: QueryableDatastore; http?: never } | { http: HttpDatastoreOptions; datastore?: never });

/** What each LangChain document carries besides its text: the fragment's fields and its document's metadata. */
export interface RagdeskDocumentMetadata extends Record<string, unknown> {
  score: number;
  source: string;
  datasource_id: string;
  datasource_name: string;
  custom_id: string | null;
  chunk_id: string;
  page_number: number | null;
}

/**
 * A LangChain retriever over one ragdesk datastore: in process (`{ datastore }`) or over the HTTP
 * API (`{ http: { url, datastoreId, apiKey } }`). Each fragment becomes a `Document` whose
 * `pageContent` is its text and whose `metadata` holds its score, source and ids (the document's own
 * metadata fields first, ragdesk's over them).
 */
export class RagdeskRetriever extends BaseRetriever<RagdeskDocumentMetadata> {
  static override lc_name(): string {
    return 'RagdeskRetriever';
  }

  lc_namespace = ['ragdesk', 'retrievers'];

  private readonly run: (query: string) => Promise<DocumentFragment[]>;
  private readonly settings: RagdeskRetrieverQuery;

  constructor(options: RagdeskRetrieverOptions) {
    const { datastore, http, topK, mode, filters, ...base } = options;
    super(base);
    this.settings = { ...(topK === undefined ? {} : { topK }), ...(mode === undefined ? {} : { mode }), ...(filters ? { filters } : {}) };
    if (datastore) this.run = (query) => datastore.query({ ...this.settings, query });
    else if (http) this.run = (query) => queryOverHttp(http, { ...this.settings, query });
    else throw new RagdeskError('invalid_request', 'RagdeskRetriever: pass `datastore` (in process) or `http` (over the API)');
  }

  override async _getRelevantDocuments(query: string): Promise<Document<RagdeskDocumentMetadata>[]> {
    const fragments = await this.run(query);
    return fragments.map(
      (fragment) =>
        new Document<RagdeskDocumentMetadata>({
          id: fragment.chunk_id,
          pageContent: fragment.text,
          metadata: {
            ...fragment.metadata,
            score: fragment.score,
            source: fragment.source,
            datasource_id: fragment.datasource_id,
            datasource_name: fragment.datasource_name,
            custom_id: fragment.custom_id,
            chunk_id: fragment.chunk_id,
            page_number: fragment.page_number,
          },
        }),
    );
  }
}
