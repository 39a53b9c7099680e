import type { RagdeskContext } from '../context.js';
import { notFound } from '../errors.js';
import type { DatastoreRecord } from '../ports/records.js';
import { newId, nowIso } from '../util/ids.js';
import { parseInput, idSchema } from '../validation.js';
import { Datastore } from './datastore.js';
import { datastoreCreateSchema, datastoreUpdateSchema, type DatastoreCreateInput, type DatastoreUpdateInput } from './schemas.js';

/** `ragdesk.datastores`: create, find, rename and delete datastores. */
export class DatastoreService {
  /**
   * @internal Created by `createRagdesk`. `stopSyncs` stops the running syncs of a datastore's
   * datasources before it is deleted, so no job writes into a datastore that is gone.
   */
  constructor(
    private readonly context: RagdeskContext,
    private readonly stopSyncs: (datastoreId: string) => Promise<void> = async () => undefined,
  ) {}

  /** Creates an empty datastore bound to the instance's embedding model. */
  /**
   * `ownerId` is an option, not a field of `input`, so a request body passed through can never
   * choose its owner: the caller (the HTTP adapter, from the API key) sets it.
   */
  async create(input: DatastoreCreateInput, options: { ownerId?: string | null } = {}): Promise<Datastore> {
    const parsed = parseInput(datastoreCreateSchema, input, 'datastore');
    if (options.ownerId != null) parseInput(idSchema, options.ownerId, 'owner id');
    this.context.assertOpen();
    const now = nowIso();
    const { embeddings } = this.context;
    const record: DatastoreRecord = {
      id: newId(),
      ownerId: options.ownerId ?? null,
      name: parsed.name.trim(),
      description: parsed.description ?? '',
      embeddingModel: embeddings.model,
      embeddingDimensions: embeddings.dimensions,
      createdAt: now,
      updatedAt: now,
    };
    await this.context.retrieval.createDatastore(record);
    return new Datastore(this.context, record);
  }

  /** The datastore with this id; throws `not_found` when there is none. */
  async get(id: string): Promise<Datastore> {
    parseInput(idSchema, id, 'datastore id');
    this.context.assertOpen();
    const record = await this.context.retrieval.getDatastore(id);
    if (!record) throw notFound('datastore', id);
    return new Datastore(this.context, record);
  }

  /** All datastores, oldest first; with `ownerId`, only that owner's. */
  async list(filter: { ownerId?: string } = {}): Promise<Datastore[]> {
    if (filter.ownerId !== undefined) parseInput(idSchema, filter.ownerId, 'owner id');
    this.context.assertOpen();
    const records = await this.context.retrieval.listDatastores(filter.ownerId === undefined ? undefined : { ownerId: filter.ownerId });
    return records.map((record) => new Datastore(this.context, record));
  }

  async update(id: string, input: DatastoreUpdateInput): Promise<Datastore> {
    parseInput(idSchema, id, 'datastore id');
    const parsed = parseInput(datastoreUpdateSchema, input, 'datastore update');
    this.context.assertOpen();
    const record = await this.context.retrieval.updateDatastore(id, {
      ...(parsed.name === undefined ? {} : { name: parsed.name.trim() }),
      ...(parsed.description === undefined ? {} : { description: parsed.description }),
      updatedAt: nowIso(),
    });
    if (!record) throw notFound('datastore', id);
    return new Datastore(this.context, record);
  }

  /** Deletes the datastore, its datasources, chunks and vector index. Returns the deleted record. */
  async delete(id: string): Promise<Datastore> {
    return this.context.operation(() => this.deleteNow(id));
  }

  private async deleteNow(id: string): Promise<Datastore> {
    const datastore = await this.get(id);
    await this.stopSyncs(id);
    await this.context.writes.run(id, async () => {
      // Index files first: a crash right after leaves a datastore whose index is rebuilt on open,
      // where the other order would leave files of a deleted datastore that nothing removes.
      // Nothing reopens it meanwhile: opening an index takes this lock and checks the datastore.
      await this.context.index.drop(id);
      this.context.forgetIndex(id);
      await this.context.retrieval.deleteDatastore(id);
    });
    return datastore;
  }
}
