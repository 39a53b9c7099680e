import type { DatasourceRecord, DatasourceRef, DatasourceStatus, MetadataFilter, StatusEvent } from '../records.js';
import type { ChunkChange } from './chunk-store.js';

/** Fields of a datasource that may change after creation. */
export type DatasourcePatch = Partial<Omit<DatasourceRecord, 'id' | 'datastoreId' | 'type' | 'createdAt'>>;

/**
 * What `pageDatasources` answers and `pageChunks` too: one page of rows, and how many rows match
 * the filter over all pages.
 */
export interface StorePage<T> {
  items: T[];
  total: number;
}

/**
 * A page of a datastore's datasources: `limit` rows after skipping `offset`, in the order of
 * `listDatasources` (oldest first, ties in insertion order).
 */
export interface DatasourcePageQuery {
  offset: number;
  limit: number;
  /**
   * Keep the datasources whose name contains it, ignoring case: the conformance suite checks ASCII
   * letters; beyond them a store folds case as its database does (the core's fallback and the
   * SQLite and memory stores fold like `toLocaleLowerCase`).
   */
  nameContains?: string;
  /** A group's id: its members only; null: only datasources in no group; absent: all. */
  groupId?: string | null;
}

/** An uploaded file kept with its datasource. */
export interface StoredFile {
  bytes: Uint8Array;
  mimeType: string;
  fileName: string | null;
}

/**
 * Datasources with their status history and stored uploads (Store conformance: `datasources`,
 * and the status, transition and file cases of `datasource pipeline`).
 */
export interface DatasourceStore {
  /** Inserts a datasource. Throws `conflict` on a duplicate id, `not_found` when its datastore is unknown. */
  createDatasource(record: DatasourceRecord): Promise<void>;
  getDatasource(id: string): Promise<DatasourceRecord | null>;
  /** The datasources with these ids, in the order of `ids`; unknown ids are skipped. One round trip. */
  getDatasources(ids: readonly string[]): Promise<DatasourceRecord[]>;
  /**
   * Optional: the citation fields of these datasources, in the order of `ids`; unknown ids are
   * skipped. Search hits and agent sources read these for every query; a store that can read fewer
   * columns than `getDatasources` should offer it (SQLite: all 17 columns cost ~40% more than five).
   * Without it the core calls `getDatasources`.
   */
  getDatasourceRefs?(ids: readonly string[]): Promise<DatasourceRef[]>;
  /**
   * Datasources of a datastore, oldest first; with `groupId`, only the children of that group; with
   * `statuses`, only those in one of them (the start-up check for interrupted work reads the few
   * unsettled records, not every document: 100k one-chunk documents took seconds to list).
   */
  listDatasources(datastoreId: string, options?: { groupId?: string; statuses?: readonly DatasourceStatus[] }): Promise<DatasourceRecord[]>;
  /**
   * Optional: one page of `listDatasources(datastoreId)` after the filters, and the number that
   * match. The console pages through tens of thousands of datasources this way; without it the core
   * lists them all and slices.
   */
  pageDatasources?(datastoreId: string, query: DatasourcePageQuery): Promise<StorePage<DatasourceRecord>>;
  /**
   * Optional: the ids of the datastore's datasources whose `metadata` passes `filter` (any order),
   * evaluated by the database (the Postgres store uses a GIN index on the metadata). The meaning
   * is `matchesMetadata` of the core, checked by the conformance suite against random metadata.
   * Without it the core lists the datasources and evaluates the filter itself.
   */
  listDatasourceIdsMatching?(datastoreId: string, filter: MetadataFilter): Promise<string[]>;
  /**
   * Applies the patch; returns the updated record, or null when the id is unknown. When the patch
   * changes `status`, a `StatusEvent` (message = patch `error` or null) is appended in the same step;
   * `replaceChunks` does the same for its `datasourcePatch`.
   */
  updateDatasource(id: string, patch: DatasourcePatch): Promise<DatasourceRecord | null>;
  /**
   * Compare-and-set of a datasource's status: applies `patch` (which should set `status`) only if
   * the current status is one of `expected`. Returns the updated record, or null when the id is
   * unknown or the status did not match (another worker moved it first).
   */
  transitionDatasource(
    id: string,
    expected: readonly DatasourceRecord['status'][],
    patch: DatasourcePatch,
  ): Promise<DatasourceRecord | null>;
  /** Status changes of a datasource, oldest first. */
  listStatusEvents(datasourceId: string): Promise<StatusEvent[]>;
  /**
   * Deletes a datasource with its chunks, stored file, jobs and status events in one step. Returns the chunk change (sequence bumped),
   * or null when the id is unknown. Children (`groupId` = id) are not touched: the core deletes them.
   */
  deleteDatasource(id: string): Promise<ChunkChange | null>;

  /**
   * Keeps the uploaded bytes of a `file` datasource so its sync job can run (again) after a
   * restart. Replaces an earlier file of the same datasource. Throws `not_found` for an unknown id.
   */
  putDatasourceFile(datasourceId: string, file: StoredFile): Promise<void>;
  /** The stored upload of a datasource, or null. */
  getDatasourceFile(datasourceId: string): Promise<StoredFile | null>;
}
