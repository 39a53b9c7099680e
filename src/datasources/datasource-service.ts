import type { RagdeskContext } from '../context.js';
import { notFound } from '../errors.js';
import type { DatasourceRecord } from '../ports/records.js';
import { idSchema, parseInput } from '../validation.js';

/**
 * `ragdesk.datasources`: the documents of datastores. This first version reads and deletes them;
 * file, web page and web site sync arrive with the datasource pipeline.
 */
export class DatasourceService {
  /** @internal Created by `createRagdesk`. */
  constructor(private readonly context: RagdeskContext) {}

  /** The datasource with this id; throws `not_found` when there is none. */
  async get(id: string): Promise<DatasourceRecord> {
    parseInput(idSchema, id, 'datasource id');
    this.context.assertOpen();
    const record = await this.context.store.getDatasource(id);
    if (!record) throw notFound('datasource', id);
    return record;
  }

  /** Datasources of a datastore, oldest first. Throws `not_found` for an unknown datastore. */
  async list(datastoreId: string): Promise<DatasourceRecord[]> {
    parseInput(idSchema, datastoreId, 'datastore id');
    this.context.assertOpen();
    if (!(await this.context.store.getDatastore(datastoreId))) throw notFound('datastore', datastoreId);
    return this.context.store.listDatasources(datastoreId);
  }

  /**
   * Deletes a datasource, the datasources grouped under it, and all their chunks from the store
   * and the vector index. Returns the deleted record.
   */
  async delete(id: string): Promise<DatasourceRecord> {
    const record = await this.get(id);
    const { store, index } = this.context;
    const datastore = await store.getDatastore(record.datastoreId);
    if (datastore) await this.context.ensureIndex(datastore);
    await this.context.writes.run(record.datastoreId, async () => {
      const children = await store.listDatasources(record.datastoreId, { groupId: id });
      for (const target of [...children, record]) {
        const change = await store.deleteDatasource(target.id);
        if (change) await index.remove(record.datastoreId, change.removedIds, change.sequence);
      }
    });
    return record;
  }
}
