import type { RagdeskContext } from '../context.js';
import { notFound } from '../errors.js';
import { newId, nowIso } from '../util/ids.js';
import { parseInput, idSchema } from '../validation.js';
import { Datastore } from './datastore.js';
import {
  datastoreCreateSchema,
  datastoreUpdateSchema,
  type DatastoreCreateInput,
  type DatastoreUpdateInput,
} from './schemas.js';

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
  async create(input: DatastoreCreateInput): Promise<Datastore> {
    const parsed = parseInput(datastoreCreateSchema, input, 'datastore');
    this.context.assertOpen();
    const now = nowIso();
    const { embeddings } = this.context;
    const record = {
      id: newId(),
      name: parsed.name.trim(),
      description: parsed.description ?? '',
      embeddingModel: embeddings.model,
      embeddingDimensions: embeddings.dimensions,
      createdAt: now,
      updatedAt: now,
    };
    await this.context.store.createDatastore(record);
    return new Datastore(this.context, record);
  }

  /** The datastore with this id; throws `not_found` when there is none. */
  async get(id: string): Promise<Datastore> {
    parseInput(idSchema, id, 'datastore id');
    this.context.assertOpen();
    const record = await this.context.store.getDatastore(id);
    if (!record) throw notFound('datastore', id);
    return new Datastore(this.context, record);
  }

  /** All datastores, oldest first. */
  async list(): Promise<Datastore[]> {
    this.context.assertOpen();
    const records = await this.context.store.listDatastores();
    return records.map((record) => new Datastore(this.context, record));
  }

  async update(id: string, input: DatastoreUpdateInput): Promise<Datastore> {
    parseInput(idSchema, id, 'datastore id');
    const parsed = parseInput(datastoreUpdateSchema, input, 'datastore update');
    this.context.assertOpen();
    const record = await this.context.store.updateDatastore(id, {
      ...(parsed.name === undefined ? {} : { name: parsed.name.trim() }),
      ...(parsed.description === undefined ? {} : { description: parsed.description }),
      updatedAt: nowIso(),
    });
    if (!record) throw notFound('datastore', id);
    return new Datastore(this.context, record);
  }

  /** Deletes the datastore, its datasources, chunks and vector index. Returns the deleted record. */
  async delete(id: string): Promise<Datastore> {
    const datastore = await this.get(id);
    await this.stopSyncs(id);
    await this.context.writes.run(id, async () => {
      await this.context.store.deleteDatastore(id);
      await this.context.index.drop(id);
      this.context.forgetIndex(id);
    });
    return datastore;
  }
}
