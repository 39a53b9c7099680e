import type { JobRecord, JobStatus } from '../../src/ports/records.js';

/**
 * Rows of sync jobs, and their records, for the SQL stores (SQLite and Postgres share the column
 * names and types). Keys come first (id, kind, datastore_id, datasource_id): updates skip them by
 * position.
 */

export const JOB_COLUMNS = [
  'id',
  'kind',
  'datastore_id',
  'datasource_id',
  'status',
  'attempts',
  'run_at',
  'lease_owner',
  'lease_until',
  'last_error',
  'created_at',
  'updated_at',
] as const;

/** id, kind, datastore_id, datasource_id: never changed by a patch. */
export const JOB_KEY_COUNT = 4;

export interface JobRow {
  id: string;
  kind: string;
  datastore_id: string;
  datasource_id: string;
  status: string;
  attempts: number;
  run_at: string;
  lease_owner: string | null;
  lease_until: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export function toJobRecord(row: JobRow): JobRecord {
  return {
    id: row.id,
    kind: row.kind as JobRecord['kind'],
    datastoreId: row.datastore_id,
    datasourceId: row.datasource_id,
    status: row.status as JobStatus,
    attempts: row.attempts,
    runAt: row.run_at,
    leaseOwner: row.lease_owner,
    leaseUntil: row.lease_until,
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Values in {@link JOB_COLUMNS} order. */
export function jobValues(job: JobRecord): unknown[] {
  return [
    job.id,
    job.kind,
    job.datastoreId,
    job.datasourceId,
    job.status,
    job.attempts,
    job.runAt,
    job.leaseOwner,
    job.leaseUntil,
    job.lastError,
    job.createdAt,
    job.updatedAt,
  ];
}
