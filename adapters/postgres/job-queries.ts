import type pg from 'pg';
import { invalidRequest, notFound } from '../../src/errors.js';
import type { JobRecord, JobStatus } from '../../src/ports/records.js';
import type { DatasourceStore, JobClaim, JobPatch, JobStore, StoredFile } from '../../src/ports/store.js';
import type { Implementation } from '../kit/guarded-methods.js';
import { inTransaction, selectRow, selectRows } from './connection.js';
import { conflict, type RecordQueries } from './record-queries.js';
import { patchedJob } from '../kit/record-patches.js';
import { JOB_COLUMNS, JOB_KEY_COUNT, jobValues, toJobRecord, type JobRow } from '../kit/job-rows.js';
import { columnList, placeholders } from './row-mapping.js';

const JOB_SELECT = columnList(JOB_COLUMNS);
const JOB_MUTABLE = JOB_COLUMNS.slice(JOB_KEY_COUNT);

/** Uploaded files and sync jobs of datasources. */
export function jobQueries(pool: pg.Pool, s: string, records: RecordQueries) {
  async function getJob(id: string): Promise<JobRecord | null> {
    const row = await selectRow<JobRow>(pool, `SELECT ${JOB_SELECT} FROM ${s}.jobs WHERE id = $1`, [id]);
    return row === undefined ? null : toJobRecord(row);
  }

  return {
    async putDatasourceFile(datasourceId: string, file: StoredFile): Promise<void> {
      // The FK makes an unknown datasource fail the insert; checking first gives the right code.
      // A copy of exactly the view's bytes: the driver would send a Buffer's whole backing store.
      const bytes = Buffer.from(file.bytes.buffer.slice(file.bytes.byteOffset, file.bytes.byteOffset + file.bytes.byteLength));
      const written = await pool.query(
        `INSERT INTO ${s}.datasource_files (datasource_id, mime_type, file_name, bytes)
         SELECT id, $2, $3, $4 FROM ${s}.datasources WHERE id = $1
         ON CONFLICT (datasource_id) DO UPDATE SET mime_type = excluded.mime_type,
           file_name = excluded.file_name, bytes = excluded.bytes`,
        [datasourceId, file.mimeType, file.fileName, bytes],
      );
      if (written.rowCount === 0) throw notFound('datasource', datasourceId);
    },

    async getDatasourceFile(datasourceId: string): Promise<StoredFile | null> {
      const row = await selectRow<{ mime_type: string; file_name: string | null; bytes: Buffer }>(
        pool,
        `SELECT mime_type, file_name, bytes FROM ${s}.datasource_files WHERE datasource_id = $1`,
        [datasourceId],
      );
      // A plain Uint8Array copy, not the driver's Buffer.
      return row === undefined ? null : { mimeType: row.mime_type, fileName: row.file_name, bytes: new Uint8Array(row.bytes) };
    },

    createJob(job: JobRecord): Promise<void> {
      return inTransaction(pool, async (client) => {
        const source = await records.getDatasource(client, job.datasourceId);
        if (source === null) throw notFound('datasource', job.datasourceId);
        if (source.datastoreId !== job.datastoreId) {
          throw invalidRequest('the job names another datastore than its datasource', [
            { path: 'datastoreId', message: `must be ${source.datastoreId}` },
          ]);
        }
        const inserted = await client.query(
          `INSERT INTO ${s}.jobs (${JOB_SELECT}) VALUES (${placeholders(JOB_COLUMNS.length)}) ON CONFLICT (id) DO NOTHING`,
          jobValues(job),
        );
        if (inserted.rowCount === 0) throw conflict('job', job.id);
      });
    },

    getJob,

    async listJobs(filter: { datasourceId?: string; statuses?: readonly JobStatus[] }): Promise<JobRecord[]> {
      const statuses = filter.statuses === undefined || filter.statuses.length === 0 ? null : [...filter.statuses];
      const rows = await selectRows<JobRow>(
        pool,
        `SELECT ${JOB_SELECT} FROM ${s}.jobs
         WHERE ($1::text IS NULL OR datasource_id = $1) AND ($2::text[] IS NULL OR status = ANY($2::text[]))
         ORDER BY created_at, pk`,
        [filter.datasourceId ?? null, statuses],
      );
      return rows.map(toJobRecord);
    },

    /**
     * One statement: the oldest due job is locked with FOR UPDATE SKIP LOCKED, so concurrent
     * claimers (other connections, other processes) skip a row another claim is taking instead of
     * waiting for it, and the row is re-checked once locked, so a job claimed and committed in
     * between is no longer due. A running job whose lease ran out lost its worker: it is due again.
     */
    async claimJob(claim: JobClaim): Promise<JobRecord | null> {
      const row = await selectRow<JobRow>(
        pool,
        `UPDATE ${s}.jobs SET status = 'running', lease_owner = $2, lease_until = $3, attempts = attempts + 1, updated_at = $1
         WHERE pk = (
           SELECT pk FROM ${s}.jobs
           WHERE status IN ('pending', 'running')
             AND ((status = 'pending' AND run_at <= $1)
               OR (status = 'running' AND (lease_until IS NULL OR lease_until <= $1)))
           ORDER BY created_at, pk
           LIMIT 1
           FOR UPDATE SKIP LOCKED
         )
         RETURNING ${JOB_SELECT}`,
        [claim.now, claim.owner, claim.leaseUntil],
      );
      return row === undefined ? null : toJobRecord(row);
    },

    updateJob(id: string, patch: JobPatch): Promise<JobRecord | null> {
      return inTransaction(pool, async (client) => {
        const row = await selectRow<JobRow>(client, `SELECT ${JOB_SELECT} FROM ${s}.jobs WHERE id = $1 FOR UPDATE`, [id]);
        if (row === undefined) return null;
        const next = patchedJob(toJobRecord(row), patch);
        const values = jobValues(next).slice(JOB_KEY_COUNT);
        await client.query(
          `UPDATE ${s}.jobs SET ${JOB_MUTABLE.map((column, i) => `${column} = $${i + 1}`).join(', ')} WHERE id = $${values.length + 1}`,
          [...values, id],
        );
        return next;
      });
    },
  } satisfies Implementation<JobStore & Pick<DatasourceStore, 'putDatasourceFile' | 'getDatasourceFile'>>;
}
