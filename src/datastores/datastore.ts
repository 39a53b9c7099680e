import type { RagdeskContext } from '../context.js';
import { notFound } from '../errors.js';
import type { DatasourceRecord, DatastoreRecord, Metadata } from '../ports/records.js';
import { nowIso } from '../util/ids.js';
import { newDatasource } from '../datasources/new-datasource.js';
import { parseInput } from '../validation.js';
import { storedTotals, type StoredTotals } from '../usage/stored-totals.js';
import { writeDocuments, type DocumentWrite } from './document-writer.js';
import { existingDocument, findDatasource, publicDatasourceId, storedDocumentId } from './document-ids.js';
import { publicFragments, type DocumentFragment } from './fragment.js';
import { reindexDatastore } from './reindex.js';
import { assertEmbeddingMatches, embeddingMatches, retrieve, type QueryDetails } from './retrieval.js';
import {
  datastoreQuerySchema,
  documentUpdateSchema,
  upsertSchema,
  type DatastoreQueryInput,
  type DocumentInput,
  type DocumentUpdateInput,
} from './schemas.js';

/**
 * A datastore: documents cut into chunks, searchable by meaning and by words. Obtained from
 * `ragdesk.datastores`; holds a snapshot of its record (call `datastores.get` for a fresh one).
 */
export class Datastore {
  readonly id: string;
  /** Owner (tenant) of the datastore; null for single-tenant use. */
  readonly ownerId: string | null;
  readonly name: string;
  readonly description: string;
  readonly embeddingModel: string;
  readonly embeddingDimensions: number;
  readonly createdAt: string;
  readonly updatedAt: string;

  /** @internal Created by `DatastoreService`. */
  constructor(
    private readonly context: RagdeskContext,
    private readonly record: DatastoreRecord,
  ) {
    this.id = record.id;
    this.ownerId = record.ownerId;
    this.name = record.name;
    this.description = record.description;
    this.embeddingModel = record.embeddingModel;
    this.embeddingDimensions = record.embeddingDimensions;
    this.createdAt = record.createdAt;
    this.updatedAt = record.updatedAt;
  }

  /**
   * Datastore Upsert: adds documents, each as a `text` datasource of this datastore. All documents
   * are validated before anything is written. Returns the new datasource ids, in input order.
   */
  async upsert(documents: readonly DocumentInput[]): Promise<{ ids: string[] }> {
    const parsed = parseInput(upsertSchema, documents, 'documents');
    return this.context.operation(async () => {
      const record = await this.current();
      assertEmbeddingMatches(this.context, record);
      const now = nowIso();
      const writes: DocumentWrite[] = [];
      for (const document of parsed) {
        const existing = document.id === undefined ? null : await existingDocument(this.context, record, document.id, document.custom_id);
        if (existing) {
          const patch = {
            ...(document.name === undefined ? {} : { name: document.name }),
            ...(document.metadata === undefined ? {} : { metadata: document.metadata }),
          };
          writes.push({ isNew: false, datasource: existing, content: document.text, ...(Object.keys(patch).length ? { patch } : {}) });
        } else {
          const datasource = newTextDatasource(record.id, document, now);
          writes.push({
            isNew: true,
            content: document.text,
            datasource: document.id === undefined ? datasource : { ...datasource, id: storedDocumentId(record.ownerId, document.id) },
          });
        }
      }
      await writeDocuments(this.context, record, writes);
      return { ids: writes.map((write) => publicDatasourceId(write.datasource.id)) };
    });
  }

  /**
   * Datastore Update: replaces the text (and optionally name and metadata) of one document. Only
   * chunks whose text changed are embedded again; unchanged text is a no-op for the index.
   */
  async update(input: DocumentUpdateInput): Promise<{ id: string }> {
    const parsed = parseInput(documentUpdateSchema, input, 'document update');
    return this.context.operation(async () => {
      const record = await this.current();
      assertEmbeddingMatches(this.context, record);
      const datasource = (await findDatasource(this.context, parsed.id, record.ownerId))?.datasource;
      if (!datasource || datasource.datastoreId !== record.id) throw notFound('datasource', parsed.id);
      const patch = {
        ...(parsed.name === undefined ? {} : { name: parsed.name }),
        ...(parsed.metadata === undefined ? {} : { metadata: parsed.metadata }),
      };
      await writeDocuments(this.context, record, [
        { isNew: false, datasource, content: parsed.text, ...(Object.keys(patch).length ? { patch } : {}) },
      ]);
      return { id: publicDatasourceId(datasource.id) };
    });
  }

  /**
   * Datastore Query: the fragments most similar to the query, best first. Hybrid by default. With
   * `rerank`, `details.rerank` receives what the reranker did (model, candidates, milliseconds).
   */
  async query(input: DatastoreQueryInput, details?: QueryDetails): Promise<DocumentFragment[]> {
    const parsed = parseInput(datastoreQuerySchema, input, 'datastore query');
    return this.context.operation(async () => publicFragments(await retrieve(this.context, await this.current(), parsed, details)));
  }

  /**
   * Loads the datastore's search indexes into memory now: the vector index (when this instance's
   * embedder is the datastore's) and the store's text index, which otherwise load on the first
   * query after the instance opens (about a second at 100k chunks, tens of seconds at a million).
   * A server calls it at start so that its first visitor does not wait.
   */
  async load(): Promise<void> {
    return this.context.operation(async () => {
      const record = await this.current();
      const { context } = this;
      // Both at once: the vector index's file is read on its own thread while the text index loads
      // here. The vector index whole: one that answers queries while it still reads its vectors
      // would leave the first visitors its rounds of fetches.
      await Promise.all([
        embeddingMatches(context, record) ? context.ensureIndexLoaded(record) : undefined,
        context.retrieval.prepareTextSearch?.(record.id),
      ]);
    });
  }

  /**
   * Re-embeds every chunk with the instance's current embedder and rebuilds the vector index, then
   * records the new model. The fix for `embedding_mismatch` after changing embedders.
   */
  async reindex(): Promise<{ chunks: number }> {
    return this.context.operation(async () => reindexDatastore(this.context, await this.current()));
  }

  /** What the datastore holds: documents, chunks, tokens, characters and bytes of stored files. */
  async stats(): Promise<StoredTotals> {
    return this.context.operation(async () => storedTotals(await this.context.retrieval.listDatasources((await this.current()).id)));
  }

  toJSON(): DatastoreRecord {
    return { ...this.record };
  }

  private async current(): Promise<DatastoreRecord> {
    this.context.assertOpen();
    const record = await this.context.retrieval.getDatastore(this.id);
    if (!record) throw notFound('datastore', this.id);
    return record;
  }
}

function newTextDatasource(
  datastoreId: string,
  document: { text: string; name?: string | undefined; metadata?: Metadata | undefined; custom_id?: string | undefined },
  now: string,
): DatasourceRecord {
  const metadata = document.metadata ?? {};
  return newDatasource(
    {
      datastoreId,
      type: 'text',
      name: document.name?.trim() || defaultName(metadata, document.text),
      customId: document.custom_id ?? null,
      metadata,
    },
    now,
  );
}

/** Documents upserted without a name are named after their source, else their first words. */
function defaultName(metadata: Metadata, text: string): string {
  if (typeof metadata.source === 'string' && metadata.source.trim()) return metadata.source.trim();
  // From the first few hundred characters only: normalising all of a 4 MB text held the loop ~0.3 s.
  const words = text.trimStart().slice(0, 512).replace(/\s+/g, ' ').trimEnd();
  return words.length > 60 ? `${words.slice(0, 57)}...` : words;
}
