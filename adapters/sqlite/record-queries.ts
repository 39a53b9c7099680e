import { metadataCondition } from './metadata-sql.js';
import { patchedDatasource, patchedDatastore } from '../kit/record-patches.js';
import { toStatusEvent, type StatusEventRow } from '../kit/record-rows.js';
import { notFound, RagdeskError } from '../../src/errors.js';
import type {
  DatasourceRecord,
  DatasourceRef,
  DatasourceStatus,
  DatastoreRecord,
  MetadataFilter,
  StatusEvent,
} from '../../src/ports/records.js';
import type { DatasourcePatch, DatasourceStore, DatastorePatch, DatastoreStore } from '../../src/ports/store.js';
import type { Implementation } from '../kit/guarded-methods.js';
import { inTransaction, type SqliteDatabase } from './database.js';
import { idListReader } from './id-list-reader.js';
import {
  assignments,
  DATASOURCE_COLUMNS,
  DATASOURCE_REF_COLUMNS,
  DATASTORE_COLUMNS,
  datasourceFromValues,
  datasourceRefFromValues,
  datasourceValues,
  datastoreValues,
  placeholders,
  toDatasourceRecord,
  toDatastoreRecord,
  type DatasourceRow,
  type DatastoreRow,
} from './row-mapping.js';

/** Datastore and datasource rows. Statements are prepared once, when the store opens. */
export function recordQueries(db: SqliteDatabase) {
  const insertDatastore = db.prepare(`INSERT INTO datastores (${DATASTORE_COLUMNS}) VALUES (${placeholders(DATASTORE_COLUMNS)})`);
  const selectDatastore = db.prepare(`SELECT ${DATASTORE_COLUMNS} FROM datastores WHERE id = ?`);
  const selectDatastores = db.prepare(`SELECT ${DATASTORE_COLUMNS} FROM datastores ORDER BY created_at, pk`);
  const selectOwnerDatastores = db.prepare(`SELECT ${DATASTORE_COLUMNS} FROM datastores WHERE owner_id = ? ORDER BY created_at, pk`);
  const updateDatastoreRow = db.prepare(`UPDATE datastores SET ${assignments(DATASTORE_COLUMNS, 1)} WHERE id = ?`);
  const deleteDatastoreRow = db.prepare('DELETE FROM datastores WHERE id = ?');

  const insertDatasource = db.prepare(`INSERT INTO datasources (${DATASOURCE_COLUMNS}) VALUES (${placeholders(DATASOURCE_COLUMNS)})`);
  const selectDatasource = db.prepare(`SELECT ${DATASOURCE_COLUMNS} FROM datasources WHERE id = ?`);
  const selectDatasourcesByIds = idListReader(db, `SELECT ${DATASOURCE_COLUMNS} FROM datasources WHERE id IN`);
  const selectDatasourceRefsByIds = idListReader(db, `SELECT ${DATASOURCE_REF_COLUMNS} FROM datasources WHERE id IN`);
  const selectDatasources = db.prepare(`SELECT ${DATASOURCE_COLUMNS} FROM datasources WHERE datastore_id = ? ORDER BY created_at, pk`);
  const selectInStatuses = db.prepare(
    `SELECT ${DATASOURCE_COLUMNS} FROM datasources
     WHERE datastore_id = ? AND status IN (SELECT value FROM json_each(?)) ORDER BY created_at, pk`,
  );
  // The same with the partial index's condition spelled out, so the planner can use it.
  const selectUnsettled = db.prepare(
    `SELECT ${DATASOURCE_COLUMNS} FROM datasources
     WHERE datastore_id = ? AND status IN ('pending', 'running') AND status IN (SELECT value FROM json_each(?))
     ORDER BY created_at, pk`,
  );
  const selectGroup = db.prepare(
    `SELECT ${DATASOURCE_COLUMNS} FROM datasources WHERE datastore_id = ? AND group_id = ? ORDER BY created_at, pk`,
  );
  const updateDatasourceRow = db.prepare(`UPDATE datasources SET ${assignments(DATASOURCE_COLUMNS, 2)} WHERE id = ?`);
  const insertEvent = db.prepare('INSERT INTO status_events (datasource_id, from_status, to_status, at, message) VALUES (?, ?, ?, ?, ?)');
  const selectEvents = db.prepare(
    'SELECT datasource_id, from_status, to_status, at, message FROM status_events WHERE datasource_id = ? ORDER BY pk',
  );

  function getDatastore(id: string): DatastoreRecord | null {
    const row = selectDatastore.get(id) as DatastoreRow | undefined;
    return row === undefined ? null : toDatastoreRecord(row);
  }

  function getDatasource(id: string): DatasourceRecord | null {
    const row = selectDatasource.get(id) as DatasourceRow | undefined;
    return row === undefined ? null : toDatasourceRecord(row);
  }

  function appendEvent(
    datasourceId: string,
    from: DatasourceStatus | null,
    to: DatasourceStatus,
    at: string,
    message: string | null,
  ): void {
    insertEvent.run(datasourceId, from, to, at, message);
  }

  /** A status event when the patch moved the status: at the patch's `updatedAt`, else now. */
  function appendTransition(current: DatasourceRecord, next: DatasourceRecord, patch: DatasourcePatch): void {
    if (next.status !== current.status) {
      appendEvent(current.id, current.status, next.status, patch.updatedAt ?? new Date().toISOString(), patch.error ?? null);
    }
  }

  /**
   * Writes the merged record, and a status event when the status changes (at the patch's
   * `updatedAt`, else now). Call inside a transaction that read `current`.
   */
  function writeDatasourcePatch(current: DatasourceRecord, patch: DatasourcePatch): DatasourceRecord {
    const next = patchedDatasource(current, patch);
    updateDatasourceRow.run(...datasourceValues(next).slice(2), current.id);
    appendTransition(current, next, patch);
    // Read back rather than return `next`, so the caller gets the same copy a getter would.
    return getDatasource(current.id) ?? next;
  }

  /**
   * Inserts the row of a new datasource (`row`, in the state it is stored in) and the event its
   * history starts with (`created`'s status, `from` null). Call inside a transaction.
   */
  function insertDatasourceRow(created: DatasourceRecord, row: DatasourceRecord): void {
    if (selectDatasource.get(row.id) !== undefined) throw conflict('datasource', row.id);
    if (selectDatastore.get(row.datastoreId) === undefined) throw notFound('datastore', row.datastoreId);
    insertDatasource.run(...datasourceValues(row));
    appendEvent(created.id, null, created.status, created.createdAt, created.error);
  }

  /** The `DatastoreStore` and `DatasourceStore` methods these queries implement whole. */
  const methods = {
    getDatastore,
    getDatasource,

    /** One raw-mode statement for all ids. */
    getDatasources(ids: readonly string[]): DatasourceRecord[] {
      return inOrder(ids, selectDatasourcesByIds, datasourceFromValues);
    },

    /** The five columns citations need: every search hit reads them (17 columns cost ~40% more). */
    getDatasourceRefs(ids: readonly string[]): DatasourceRef[] {
      return inOrder(ids, selectDatasourceRefsByIds, datasourceRefFromValues);
    },

    createDatastore(record: DatastoreRecord): void {
      inTransaction(db, () => {
        if (selectDatastore.get(record.id) !== undefined) throw conflict('datastore', record.id);
        insertDatastore.run(...datastoreValues(record));
      });
    },

    listDatastores({ ownerId }: { ownerId?: string } = {}): DatastoreRecord[] {
      const rows = ownerId === undefined ? selectDatastores.all() : selectOwnerDatastores.all(ownerId);
      return (rows as DatastoreRow[]).map(toDatastoreRecord);
    },

    updateDatastore(id: string, patch: DatastorePatch): DatastoreRecord | null {
      return inTransaction(db, () => {
        const current = getDatastore(id);
        if (current === null) return null;
        const next = patchedDatastore(current, patch);
        updateDatastoreRow.run(...datastoreValues(next).slice(1), id);
        return next;
      });
    },

    createDatasource(record: DatasourceRecord): void {
      inTransaction(db, () => insertDatasourceRow(record, record));
    },

    /** Prepared per call: the SQL follows the filter's shape (one statement costs tens of µs). */
    listDatasourceIdsMatching(datastoreId: string, filter: MetadataFilter): string[] {
      const condition = metadataCondition(filter);
      const rows = db
        .prepare(`SELECT id FROM datasources WHERE datastore_id = ? AND ${condition.sql}`)
        .all(datastoreId, ...condition.params);
      return (rows as { id: string }[]).map((row) => row.id);
    },

    listDatasources(
      datastoreId: string,
      { groupId, statuses }: { groupId?: string; statuses?: readonly DatasourceStatus[] } = {},
    ): DatasourceRecord[] {
      const rows =
        groupId !== undefined
          ? selectGroup.all(datastoreId, groupId)
          : statuses !== undefined
            ? (statuses.every((status) => status === 'pending' || status === 'running') ? selectUnsettled : selectInStatuses).all(
                datastoreId,
                JSON.stringify(statuses),
              )
            : selectDatasources.all(datastoreId);
      const records = (rows as DatasourceRow[]).map(toDatasourceRecord);
      return groupId !== undefined && statuses !== undefined ? records.filter((record) => statuses.includes(record.status)) : records;
    },

    updateDatasource(id: string, patch: DatasourcePatch): DatasourceRecord | null {
      return inTransaction(db, () => {
        const current = getDatasource(id);
        return current === null ? null : writeDatasourcePatch(current, patch);
      });
    },

    /** Read and write in one IMMEDIATE transaction: no other connection can move the status between. */
    transitionDatasource(id: string, expected: readonly DatasourceStatus[], patch: DatasourcePatch): DatasourceRecord | null {
      return inTransaction(db, () => {
        const current = getDatasource(id);
        if (current === null || !expected.includes(current.status)) return null;
        return writeDatasourcePatch(current, patch);
      });
    },

    listStatusEvents(datasourceId: string): StatusEvent[] {
      return (selectEvents.all(datasourceId) as StatusEventRow[]).map(toStatusEvent);
    },
  } satisfies Implementation<
    Omit<DatastoreStore & DatasourceStore, 'deleteDatastore' | 'deleteDatasource' | 'putDatasourceFile' | 'getDatasourceFile'>
  >;

  return {
    methods,
    getDatastore,
    getDatasource,
    writeDatasourcePatch,

    /** Foreign keys cascade to datasources, chunks, jobs, files and events. */
    deleteDatastore(id: string): boolean {
      return inTransaction(db, () => deleteDatastoreRow.run(id).changes > 0);
    },

    /**
     * `createDatasource(record)` then `writeDatasourcePatch` of `patch`, as one insert of the
     * patched row and the same two status events, without the read and read-back between them.
     * Call inside a transaction.
     */
    createPatchedDatasource(record: DatasourceRecord, patch: DatasourcePatch): DatasourceRecord {
      const next = patchedDatasource(record, patch);
      insertDatasourceRow(record, next);
      appendTransition(record, next, patch);
      return next;
    },
  };
}

export type RecordQueries = ReturnType<typeof recordQueries>;

export function conflict(kind: string, id: string): RagdeskError {
  return new RagdeskError('conflict', `${kind} ${JSON.stringify(id)} already exists`, {
    details: { kind, id },
  });
}

/** Rows for distinct `ids` (id in the first column), mapped and returned in the order of `ids`. */
function inOrder<T>(ids: readonly string[], read: (ids: readonly string[]) => unknown[][], map: (values: unknown[]) => T): T[] {
  if (ids.length === 0) return [];
  const byId = new Map(read([...new Set(ids)]).map((values) => [values[0] as string, values]));
  return ids.flatMap((id) => {
    const values = byId.get(id);
    return values === undefined ? [] : [map(values)];
  });
}
