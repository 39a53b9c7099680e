import type { JobRecord, JobStatus } from '../records.js';

/** Fields of a job that may change after creation. */
export type JobPatch = Partial<Omit<JobRecord, 'id' | 'kind' | 'datastoreId' | 'datasourceId' | 'createdAt'>>;

/** A lease request: take one due job for `owner` until `leaseUntil`. */
export interface JobClaim {
  owner: string;
  /** Current time (ISO); jobs with `runAt` after it are not due. */
  now: string;
  leaseUntil: string;
}

/** Sync jobs and their leases (Store conformance: the job cases of `datasource pipeline`). */
export interface JobStore {
  /** Inserts a job. Throws `conflict` on a duplicate id, `not_found` when its datasource is unknown. */
  createJob(job: JobRecord): Promise<void>;
  getJob(id: string): Promise<JobRecord | null>;
  /** Jobs matching every given criterion, oldest first. */
  listJobs(filter: { datasourceId?: string; statuses?: readonly JobStatus[] }): Promise<JobRecord[]>;
  /**
   * Atomically takes the oldest (first created) due job — `pending` with `runAt <= now`, or
   * `running` with an expired or missing lease (`leaseUntil <= now` or null: its worker died) —
   * marks it `running` for `owner` until `leaseUntil` and increments `attempts`. Two concurrent
   * claims never return the same job. Null when none is due.
   */
  claimJob(claim: JobClaim): Promise<JobRecord | null>;
  /** Applies the patch; returns the updated record, or null when the id is unknown. */
  updateJob(id: string, patch: JobPatch): Promise<JobRecord | null>;
}
