import { metadataCondition } from './metadata-sql.js';
import type pg from 'pg';
import { DATASTORE_PATCH_KEYS, patchedDatasource } from '../kit/record-patches.js';
import { toStatusEvent, type StatusEventRow } from '../kit/record-rows.js';
import { notFound, RagdeskError } from '../../src/errors.js';
import type { DatasourceRecord, DatasourceStatus, DatastoreRecord, MetadataFilter, StatusEvent } from '../../src/ports/records.js';
import type { DatasourcePatch, DatasourceStore, DatastorePatch, DatastoreStore } from '../../src/ports/store.js';
import type { Implementation } from '../kit/guarded-methods.js';
import { inTransaction, selectRow, selectRows, sqlState, type Queryable } from './connection.js';
import {
  assignments,
  columnList,
  DATASOURCE_COLUMNS,
  DATASTORE_COLUMNS,
  datasourceValues,
  datastoreValues,
  placeholders,
  toDatasourceRecord,
  toDatastoreRecord,
  type DatasourceRow,
  type DatastoreRow,
} from './row-mapping.js';

const DATASTORE_SELECT = columnList(DATASTORE_COLUMNS);
const DATASOURCE_SELECT = columnList(DATASOURCE_COLUMNS);

/** Datastore and datasource rows with their status history. `s` is the quoted schema name. */
export function recordQueries(pool: pg.Pool, s: string) {
  async function getDatastore(db: Queryable, id: string): Promise<DatastoreRecord | null> {
    const row = await selectRow<DatastoreRow>(db, `SELECT ${DATASTORE_SELECT} FROM ${s}.datastores WHERE id = $1`, [id]);
    return row === undefined ? null : toDatastoreRecord(row);
  }

  /** With `lock`, the row stays locked until the caller's transaction ends. */
  async function getDatasource(db: Queryable, id: string, lock = false): Promise<DatasourceRecord | null> {
    const row = await selectRow<DatasourceRow>(
      db,
      `SELECT ${DATASOURCE_SELECT} FROM ${s}.datasources WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return row === undefined ? null : toDatasourceRecord(row);
  }

  async function appendEvent(
    db: Queryable,
    datasourceId: string,
    from: DatasourceStatus | null,
    to: DatasourceStatus,
    at: string,
    message: string | null,
  ): Promise<void> {
    await db.query(`INSERT INTO ${s}.status_events (datasource_id, from_status, to_status, at, message) VALUES ($1, $2, $3, $4, $5)`, [
      datasourceId,
      from,
      to,
      at,
      message,
    ]);
  }

  /**
   * Writes the merged record, and a status event when the status changes (at the patch's
   * `updatedAt`, else now). Call inside a transaction that locked `current`.
   */
  async function writeDatasourcePatch(db: Queryable, current: DatasourceRecord, patch: DatasourcePatch): Promise<DatasourceRecord> {
    const next = patchedDatasource(current, patch);
    const values = datasourceValues(next).slice(2);
    const row = await selectRow<DatasourceRow>(
      db,
      `UPDATE ${s}.datasources SET ${assignments(DATASOURCE_COLUMNS, 2)} WHERE id = $${values.length + 1}
       RETURNING ${DATASOURCE_SELECT}`,
      [...values, current.id],
    );
    if (next.status !== current.status) {
      await appendEvent(db, current.id, current.status, next.status, eventTime(patch), patch.error ?? null);
    }
    // The stored row, not `next`, so the caller gets exactly what a getter would return.
    return row === undefined ? next : toDatasourceRecord(row);
  }

  /** The `DatastoreStore` and `DatasourceStore` methods these queries implement whole. */
  const methods = {
    getDatastore: (id: string) => getDatastore(pool, id),
    getDatasource: (id: string) => getDatasource(pool, id),

    async createDatastore(record: DatastoreRecord): Promise<void> {
      const inserted = await pool.query(
        `INSERT INTO ${s}.datastores (${DATASTORE_SELECT}) VALUES (${placeholders(DATASTORE_COLUMNS.length)})
         ON CONFLICT (id) DO NOTHING`,
        datastoreValues(record),
      );
      if (inserted.rowCount === 0) throw conflict('datastore', record.id);
    },

    async listDatastores(filter: { ownerId?: string } = {}): Promise<DatastoreRecord[]> {
      const rows =
        filter.ownerId === undefined
          ? await selectRows<DatastoreRow>(pool, `SELECT ${DATASTORE_SELECT} FROM ${s}.datastores ORDER BY created_at, pk`)
          : await selectRows<DatastoreRow>(
              pool,
              `SELECT ${DATASTORE_SELECT} FROM ${s}.datastores WHERE owner_id = $1 ORDER BY created_at, pk`,
              [filter.ownerId],
            );
      return rows.map(toDatastoreRecord);
    },

    /** One statement: unchanged fields keep their column value (COALESCE of a null parameter). */
    async updateDatastore(id: string, patch: DatastorePatch): Promise<DatastoreRecord | null> {
      const values = DATASTORE_PATCH_KEYS.map((key) => patch[key] ?? null);
      const row = await selectRow<DatastoreRow>(
        pool,
        `UPDATE ${s}.datastores SET
           name = COALESCE($2, name), description = COALESCE($3, description),
           embedding_model = COALESCE($4, embedding_model),
           embedding_dimensions = COALESCE($5::integer, embedding_dimensions),
           updated_at = COALESCE($6, updated_at)
         WHERE id = $1 RETURNING ${DATASTORE_SELECT}`,
        [id, ...values],
      );
      return row === undefined ? null : toDatastoreRecord(row);
    },

    /** Foreign keys cascade to datasources, chunks, jobs, files and events. */
    /**
     * One statement (one round trip, atomic): the row and its first status event (`from` null).
     * The foreign key refuses an unknown datastore, and holds a concurrent delete of it off.
     */
    async createDatasource(record: DatasourceRecord): Promise<void> {
      try {
        const inserted = await pool.query(
          `WITH inserted AS (
             INSERT INTO ${s}.datasources (${DATASOURCE_SELECT}) VALUES (${placeholders(DATASOURCE_COLUMNS.length)})
             ON CONFLICT (id) DO NOTHING RETURNING id, status, created_at, error
           )
           INSERT INTO ${s}.status_events (datasource_id, from_status, to_status, at, message)
           SELECT id, NULL, status, created_at, error FROM inserted`,
          datasourceValues(record),
        );
        if (inserted.rowCount === 0) throw conflict('datasource', record.id);
      } catch (error) {
        if (sqlState(error) === '23503') throw notFound('datastore', record.datastoreId);
        throw error;
      }
    },

    async getDatasources(ids: readonly string[]): Promise<DatasourceRecord[]> {
      if (ids.length === 0) return [];
      const rows = await selectRows<DatasourceRow>(pool, `SELECT ${DATASOURCE_SELECT} FROM ${s}.datasources WHERE id = ANY($1::text[])`, [
        [...new Set(ids)],
      ]);
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.flatMap((id) => {
        const row = byId.get(id);
        return row === undefined ? [] : [toDatasourceRecord(row)];
      });
    },

    async listDatasourceIdsMatching(datastoreId: string, filter: MetadataFilter): Promise<string[]> {
      const params: unknown[] = [datastoreId];
      const condition = metadataCondition(filter, params, s);
      const rows = await selectRows<{ id: string }>(
        pool,
        `SELECT id FROM ${s}.datasources WHERE datastore_id = $1 AND ${condition}`,
        params,
      );
      return rows.map((row) => row.id);
    },

    async listDatasources(
      datastoreId: string,
      { groupId, statuses }: { groupId?: string; statuses?: readonly DatasourceStatus[] } = {},
    ): Promise<DatasourceRecord[]> {
      const rows =
        groupId === undefined
          ? await selectRows<DatasourceRow>(
              pool,
              `SELECT ${DATASOURCE_SELECT} FROM ${s}.datasources WHERE datastore_id = $1 ORDER BY created_at, pk`,
              [datastoreId],
            )
          : await selectRows<DatasourceRow>(
              pool,
              `SELECT ${DATASOURCE_SELECT} FROM ${s}.datasources WHERE datastore_id = $1 AND group_id = $2 ORDER BY created_at, pk`,
              [datastoreId, groupId],
            );
      const found = rows.map(toDatasourceRecord);
      return statuses === undefined ? found : found.filter((record) => statuses.includes(record.status));
    },

    updateDatasource(id: string, patch: DatasourcePatch): Promise<DatasourceRecord | null> {
      return inTransaction(pool, async (client) => {
        const current = await getDatasource(client, id, true);
        return current === null ? null : writeDatasourcePatch(client, current, patch);
      });
    },

    /** The row lock (FOR UPDATE) makes read-compare-write atomic against every other instance. */
    transitionDatasource(id: string, expected: readonly DatasourceStatus[], patch: DatasourcePatch): Promise<DatasourceRecord | null> {
      return inTransaction(pool, async (client) => {
        const current = await getDatasource(client, id, true);
        if (current === null || !expected.includes(current.status)) return null;
        return writeDatasourcePatch(client, current, patch);
      });
    },

    async listStatusEvents(datasourceId: string): Promise<StatusEvent[]> {
      const rows = await selectRows<StatusEventRow>(
        pool,
        `SELECT datasource_id, from_status, to_status, at, message FROM ${s}.status_events WHERE datasource_id = $1 ORDER BY pk`,
        [datasourceId],
      );
      return rows.map(toStatusEvent);
    },
  } satisfies Implementation<
    Omit<DatastoreStore & DatasourceStore, 'deleteDatastore' | 'deleteDatasource' | 'putDatasourceFile' | 'getDatasourceFile'>
  >;

  return {
    methods,
    getDatasource,
    writeDatasourcePatch,
    async deleteDatastore(id: string): Promise<boolean> {
      const deleted = await pool.query(`DELETE FROM ${s}.datastores WHERE id = $1`, [id]);
      return (deleted.rowCount ?? 0) > 0;
    },
  };
}

export type RecordQueries = ReturnType<typeof recordQueries>;

/** When a status change happened: the patch's `updatedAt`, else now. */
export function eventTime(patch: DatasourcePatch): string {
  return patch.updatedAt ?? new Date().toISOString();
}

export function conflict(kind: string, id: string): RagdeskError {
  return new RagdeskError('conflict', `${kind} ${JSON.stringify(id)} already exists`, {
    details: { kind, id },
  });
}
