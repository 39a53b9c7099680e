import { claimPatch } from '../kit/job-claim.js';
import { patchedJob } from '../kit/record-patches.js';
import { invalidRequest, notFound } from '../../src/errors.js';
import type { DatasourceRecord, DatasourceStatus, JobRecord, JobStatus, StatusEvent } from '../../src/ports/records.js';
import type { DatasourceStore, JobClaim, JobPatch, JobStore, StoredFile } from '../../src/ports/store.js';
import type { Implementation } from '../kit/guarded-methods.js';
import { conflict } from './record-copies.js';

/**
 * What the memory store keeps per datasource beside its chunks: status history, uploaded file,
 * sync jobs. `dropDatasource` removes all three, as the datasource's deletion requires.
 */
export function memoryJobs(findDatasource: (id: string) => DatasourceRecord | undefined) {
  const events = new Map<string, StatusEvent[]>();
  const files = new Map<string, StoredFile>();
  const jobs = new Map<string, JobRecord>();

  function writeJob(current: JobRecord, patch: JobPatch): JobRecord {
    const next = patchedJob(current, patch);
    jobs.set(next.id, next);
    return { ...next };
  }

  /** The `JobStore` methods, and the status history and file methods of `DatasourceStore`. */
  const methods = {
    listStatusEvents(datasourceId: string): StatusEvent[] {
      return (events.get(datasourceId) ?? []).map((event) => ({ ...event }));
    },

    putDatasourceFile(datasourceId: string, file: StoredFile): void {
      if (findDatasource(datasourceId) === undefined) throw notFound('datasource', datasourceId);
      // `new Uint8Array(x)` copies; `slice()` would not when the caller hands over a Buffer.
      files.set(datasourceId, { mimeType: file.mimeType, fileName: file.fileName, bytes: new Uint8Array(file.bytes) });
    },

    getDatasourceFile(datasourceId: string): StoredFile | null {
      const file = files.get(datasourceId);
      return file === undefined ? null : { ...file, bytes: new Uint8Array(file.bytes) };
    },

    createJob(job: JobRecord): void {
      if (jobs.has(job.id)) throw conflict('job', job.id);
      const source = findDatasource(job.datasourceId);
      if (source === undefined) throw notFound('datasource', job.datasourceId);
      if (source.datastoreId !== job.datastoreId) {
        throw invalidRequest('the job names another datastore than its datasource', [
          { path: 'datastoreId', message: `must be ${source.datastoreId}` },
        ]);
      }
      jobs.set(job.id, { ...job });
    },

    getJob(id: string): JobRecord | null {
      const job = jobs.get(id);
      return job === undefined ? null : { ...job };
    },

    listJobs(filter: { datasourceId?: string; statuses?: readonly JobStatus[] }): JobRecord[] {
      const statuses = filter.statuses !== undefined && filter.statuses.length > 0 ? filter.statuses : undefined;
      return oldestJobsFirst([...jobs.values()])
        .filter((job) => filter.datasourceId === undefined || job.datasourceId === filter.datasourceId)
        .filter((job) => statuses === undefined || statuses.includes(job.status))
        .map((job) => ({ ...job }));
    },

    claimJob(claim: JobClaim): JobRecord | null {
      const due = oldestJobsFirst([...jobs.values()]).find(
        (job) =>
          (job.status === 'pending' && job.runAt <= claim.now) ||
          (job.status === 'running' && (job.leaseUntil === null || job.leaseUntil <= claim.now)),
      );
      if (due === undefined) return null;
      return writeJob(due, claimPatch(due, claim));
    },

    updateJob(id: string, patch: JobPatch): JobRecord | null {
      const current = jobs.get(id);
      return current === undefined ? null : writeJob(current, patch);
    },
  } satisfies Implementation<JobStore & Pick<DatasourceStore, 'listStatusEvents' | 'putDatasourceFile' | 'getDatasourceFile'>>;

  return {
    methods,
    appendEvent(datasourceId: string, from: DatasourceStatus | null, to: DatasourceStatus, at: string, message: string | null): void {
      const list = events.get(datasourceId) ?? [];
      list.push({ datasourceId, from, to, at, message });
      events.set(datasourceId, list);
    },

    dropDatasource(datasourceId: string): void {
      events.delete(datasourceId);
      files.delete(datasourceId);
      for (const [id, job] of jobs) if (job.datasourceId === datasourceId) jobs.delete(id);
    },
  };
}

/** Oldest `createdAt` first; the sort is stable, so ties keep insertion order. */
function oldestJobsFirst(list: JobRecord[]): JobRecord[] {
  return list.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
}
