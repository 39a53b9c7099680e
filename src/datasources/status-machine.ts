import { RagdeskError } from '../errors.js';
import type { DatasourceStatus } from '../ports/records.js';

/**
 * The API's "States and transitions": the allowed moves of a datasource's status. A re-sync of a finished
 * datasource goes back through `pending`; `running` only ends in one of the three outcomes, or
 * returns to `pending` when a transient failure schedules a retry or a restart resumes the job.
 */
const TRANSITIONS: Record<DatasourceStatus, readonly DatasourceStatus[]> = {
  unsynched: ['pending'],
  pending: ['running', 'unsynched'],
  running: ['synched', 'error', 'usage_limit_reached', 'pending'],
  synched: ['pending'],
  error: ['pending'],
  usage_limit_reached: ['pending'],
};

export function canTransition(from: DatasourceStatus, to: DatasourceStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Throws `conflict` for a move the machine does not allow. */
export function assertTransition(datasourceId: string, from: DatasourceStatus, to: DatasourceStatus): void {
  if (!canTransition(from, to)) {
    throw new RagdeskError('conflict', `Datasource ${datasourceId} cannot go from ${from} to ${to}`, {
      details: { datasourceId, from, to },
    });
  }
}

/** Statuses in which no job works on the datasource. */
export function isSettled(status: DatasourceStatus): boolean {
  return status === 'synched' || status === 'error' || status === 'usage_limit_reached' || status === 'unsynched';
}
