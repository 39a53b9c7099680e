import type { RagdeskContext } from '../context.js';
import { RagdeskError } from '../errors.js';
import type { DatasourceStatus, JobRecord } from '../ports/records.js';
import type { RetryPolicy } from '../ports/retry-policy.js';
import { nowIso } from '../util/ids.js';
import type { DatasourceEvents } from './events.js';
import { syncContent } from './sync-content.js';

/** Why a running job was stopped from outside. */
export type StopReason = 'shutdown' | 'deleted';

/**
 * Runs one claimed sync job to an outcome: `synched`, `error`, `usage_limit_reached`, a retry with
 * backoff for transient failures, or back to `pending` when the instance shuts down mid-way (so the
 * next start resumes it).
 */
export async function runSyncJob(
  context: RagdeskContext,
  job: JobRecord,
  events: DatasourceEvents,
  signal: AbortSignal,
  retry: RetryPolicy,
): Promise<void> {
  const { retrieval: store } = context;
  const datasource = await store.getDatasource(job.datasourceId);
  const datastore = datasource && (await store.getDatastore(datasource.datastoreId));
  if (!datasource || !datastore) {
    await store.updateJob(job.id, { status: 'cancelled', leaseOwner: null, leaseUntil: null, updatedAt: nowIso() });
    return;
  }
  const running =
    datasource.status === 'running'
      ? datasource
      : await store.transitionDatasource(datasource.id, ['pending'], { status: 'running', error: null, updatedAt: nowIso() });
  if (!running) {
    await store.updateJob(job.id, { status: 'cancelled', leaseOwner: null, leaseUntil: null, updatedAt: nowIso() });
    return;
  }
  // A job resumed after a crash finds its datasource already running: no transition to report.
  if (datasource.status !== 'running') emitStatus(events, datasource.datastoreId, datasource.id, datasource.status, 'running', null);
  try {
    await syncContent(context, datastore, running, events, signal);
    await store.updateJob(job.id, { status: 'done', leaseOwner: null, leaseUntil: null, lastError: null, updatedAt: nowIso() });
    emitStatus(events, datastore.id, datasource.id, 'running', 'synched', null);
  } catch (error) {
    await settleFailure(context, job, events, signal, retry, error);
  }
}

async function settleFailure(
  context: RagdeskContext,
  job: JobRecord,
  events: DatasourceEvents,
  signal: AbortSignal,
  retry: RetryPolicy,
  error: unknown,
): Promise<void> {
  const { retrieval: store } = context;
  const now = nowIso();
  const message = error instanceof Error ? error.message : String(error);
  const reason = signal.aborted ? (signal.reason as unknown) : undefined;
  if (reason === 'deleted') return;
  const transient = reason === 'shutdown' || (RagdeskError.isInstance(error) && error.retryable && job.attempts < retry.maxAttempts);
  if (transient) {
    const delay = reason === 'shutdown' ? 0 : retry.baseDelayMs * 2 ** Math.max(0, job.attempts - 1);
    const retryAfter = RagdeskError.isInstance(error) && typeof error.details?.retryAfterMs === 'number' ? error.details.retryAfterMs : 0;
    const runAt = new Date(Date.now() + Math.max(delay, retryAfter)).toISOString();
    await store.updateJob(job.id, { status: 'pending', runAt, leaseOwner: null, leaseUntil: null, lastError: message, updatedAt: now });
    await store.transitionDatasource(job.datasourceId, ['running'], { status: 'pending', error: message, updatedAt: now });
    emitStatus(events, job.datastoreId, job.datasourceId, 'running', 'pending', message);
    return;
  }
  const status = RagdeskError.isInstance(error) && error.code === 'usage_limit' ? 'usage_limit_reached' : 'error';
  await store.updateJob(job.id, { status: 'failed', leaseOwner: null, leaseUntil: null, lastError: message, updatedAt: now });
  await store.transitionDatasource(job.datasourceId, ['running'], { status, error: message, updatedAt: now });
  emitStatus(events, job.datastoreId, job.datasourceId, 'running', status, message);
}

function emitStatus(
  events: DatasourceEvents,
  datastoreId: string,
  datasourceId: string,
  from: DatasourceStatus,
  to: DatasourceStatus,
  message: string | null,
): void {
  events.emit('status', { datasourceId, datastoreId, from, to, message });
}
