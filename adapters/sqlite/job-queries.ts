import type { Implementation } from '../kit/guarded-methods.js';
import { claimPatch } from '../kit/job-claim.js';
import { patchedJob } from '../kit/record-patches.js';
import { JOB_COLUMNS as JOB_COLUMN_NAMES, JOB_KEY_COUNT, jobValues, toJobRecord, type JobRow } from '../kit/job-rows.js';
import { invalidRequest, notFound } from '../../src/errors.js';
import type { JobRecord, JobStatus } from '../../src/ports/records.js';
import type { JobClaim, JobPatch, JobStore } from '../../src/ports/store.js';
import { inTransaction, type SqliteDatabase } from './database.js';
import { conflict, type RecordQueries } from './record-queries.js';
import { assignments, placeholders } from './row-mapping.js';

/** Sync jobs of datasources (their uploaded files: stored-files.ts). Statements are prepared once. */

const JOB_COLUMNS = JOB_COLUMN_NAMES.join(', ');

export function jobQueries(db: SqliteDatabase, records: RecordQueries) {
  const insertJob = db.prepare(`INSERT INTO jobs (${JOB_COLUMNS}) VALUES (${placeholders(JOB_COLUMNS)})`);
  const selectJob = db.prepare(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = ?`);
  const selectJobs = db.prepare(
    `SELECT ${JOB_COLUMNS} FROM jobs
     WHERE (@datasource IS NULL OR datasource_id = @datasource)
       AND (@statuses IS NULL OR status IN (SELECT value FROM json_each(@statuses)))
     ORDER BY created_at, pk`,
  );
  const updateJobRow = db.prepare(`UPDATE jobs SET ${assignments(JOB_COLUMNS, JOB_KEY_COUNT)} WHERE id = ?`);
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
    const next = patchedJob(current, patch);
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
  } satisfies Implementation<JobStore>;
}
