import { claimPatch } from '../kit/job-claim.js';
import { invalidRequest, notFound } from '../../src/errors.js';
import type { JobRecord, JobStatus } from '../../src/ports/records.js';
import type { JobClaim, JobPatch } from '../../src/ports/store.js';
import { inTransaction, type SqliteDatabase } from './database.js';
import { conflict, type RecordQueries } from './record-queries.js';

/** Sync jobs of datasources (their uploaded files: stored-files.ts). Statements are prepared once. */

interface JobRow {
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

// Keys first (id, kind, datastore_id, datasource_id): updates skip them by position.
const JOB_COLUMNS =
  'id, kind, datastore_id, datasource_id, status, attempts, run_at, lease_owner, lease_until, ' + 'last_error, created_at, updated_at';
const JOB_KEY_COUNT = 4;
const JOB_FIXED_KEYS = new Set(['id', 'kind', 'datastoreId', 'datasourceId', 'createdAt']);

function toJobRecord(row: JobRow): JobRecord {
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

function jobValues(job: JobRecord): unknown[] {
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

export function jobQueries(db: SqliteDatabase, records: RecordQueries) {
  const insertJob = db.prepare(
    `INSERT INTO jobs (${JOB_COLUMNS}) VALUES (${JOB_COLUMNS.split(',')
      .map(() => '?')
      .join(', ')})`,
  );
  const selectJob = db.prepare(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = ?`);
  const selectJobs = db.prepare(
    `SELECT ${JOB_COLUMNS} FROM jobs
     WHERE (@datasource IS NULL OR datasource_id = @datasource)
       AND (@statuses IS NULL OR status IN (SELECT value FROM json_each(@statuses)))
     ORDER BY created_at, pk`,
  );
  const updateJobRow = db.prepare(
    `UPDATE jobs SET ${JOB_COLUMNS.split(',')
      .slice(JOB_KEY_COUNT)
      .map((c) => `${c.trim()} = ?`)
      .join(', ')} WHERE id = ?`,
  );
  // A running job whose lease has run out lost its worker (crash, kill): it is due again.
  const selectDue = db.prepare(
    `SELECT ${JOB_COLUMNS} FROM jobs
     WHERE (status = 'pending' AND run_at <= @now)
        OR (status = 'running' AND (lease_until IS NULL OR lease_until <= @now))
     ORDER BY created_at, pk LIMIT 1`,
  );

  function getJob(id: string): JobRecord | null {
    const row = selectJob.get(id) as JobRow | undefined;
    return row === undefined ? null : toJobRecord(row);
  }

  function writeJob(current: JobRecord, patch: JobPatch): JobRecord {
    const next: JobRecord = { ...current };
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined || JOB_FIXED_KEYS.has(key) || !(key in next)) continue;
      Object.assign(next, { [key]: value });
    }
    updateJobRow.run(...jobValues(next).slice(JOB_KEY_COUNT), current.id);
    return next;
  }

  return {
    createJob(job: JobRecord): void {
      inTransaction(db, () => {
        if (selectJob.get(job.id) !== undefined) throw conflict('job', job.id);
        const source = records.getDatasource(job.datasourceId);
        if (source === null) throw notFound('datasource', job.datasourceId);
        if (source.datastoreId !== job.datastoreId) {
          throw invalidRequest('the job names another datastore than its datasource', [
            { path: 'datastoreId', message: `must be ${source.datastoreId}` },
          ]);
        }
        insertJob.run(...jobValues(job));
      });
    },

    getJob,

    listJobs(filter: { datasourceId?: string; statuses?: readonly JobStatus[] }): JobRecord[] {
      const statuses = filter.statuses === undefined || filter.statuses.length === 0 ? null : JSON.stringify(filter.statuses);
      return (selectJobs.all({ datasource: filter.datasourceId ?? null, statuses }) as JobRow[]).map(toJobRecord);
    },

    /** One IMMEDIATE transaction: a second process claiming at the same time waits, then sees the lease. */
    claimJob(claim: JobClaim): JobRecord | null {
      return inTransaction(db, () => {
        const row = selectDue.get({ now: claim.now }) as JobRow | undefined;
        if (row === undefined) return null;
        const current = toJobRecord(row);
        return writeJob(current, claimPatch(current, claim));
      });
    },

    updateJob(id: string, patch: JobPatch): JobRecord | null {
      return inTransaction(db, () => {
        const current = getJob(id);
        return current === null ? null : writeJob(current, patch);
      });
    },
  };
}
