import type { DatastoreRecord } from '../records.js';

/** Fields of a datastore that may change after creation. */
export type DatastorePatch = Partial<
  Pick<DatastoreRecord, 'name' | 'description' | 'embeddingModel' | 'embeddingDimensions' | 'updatedAt'>
>;

/** Datastores (Store conformance: `datastores`). */
export interface DatastoreStore {
  /** Inserts a datastore. Throws `conflict` when the id exists. */
  createDatastore(record: DatastoreRecord): Promise<void>;
  getDatastore(id: string): Promise<DatastoreRecord | null>;
  /** All datastores, oldest first; with `ownerId`, only that owner's. */
  listDatastores(filter?: { ownerId?: string }): Promise<DatastoreRecord[]>;
  /** Applies the patch; returns the updated record, or null when the id is unknown. */
  updateDatastore(id: string, patch: DatastorePatch): Promise<DatastoreRecord | null>;
  /** Deletes the datastore with its datasources and chunks. Returns false when the id is unknown. */
  deleteDatastore(id: string): Promise<boolean>;
}
