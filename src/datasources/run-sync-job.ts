import type { RagdeskContext } from '../context.js';
import { RagdeskError } from '../errors.js';
import type { DatasourceRecord, DatasourceStatus, JobRecord } from '../ports/records.js';
import type { RetryPolicy } from '../ports/retry-policy.js';
import { nowIso } from '../util/ids.js';
import type { DatasourceEvents } from './events.js';
import { scheduleRefresh } from './refresh-schedule.js';
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
  now: () => number = Date.now,
): Promise<void> {
  const { retrieval: store } = context;
  const found = await store.getDatasource(job.datasourceId);
  const datasource = found && job.kind === 'refresh' ? await startRefresh(context, job, found, events) : found;
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
    const retried = await settleFailure(context, job, events, signal, retry, error, now);
    if (retried) return;
  }
  // The next refresh counts from the end of this sync, whatever started it.
  const settled = await store.getDatasource(datasource.id);
  if (settled) await scheduleRefresh(context, settled, now(), now());
}

/**
 * A refresh job runs only when nothing else syncs the datasource: it moves a settled datasource to
 * `pending` (compare-and-set, so a sync started meanwhile wins) and resumes one it left `pending`
 * or `running` itself at shutdown. Otherwise it is not needed: the sync under way schedules the
 * next refresh when it ends. Returns the datasource to sync, or null to cancel the job.
 */
async function startRefresh(
  context: RagdeskContext,
  job: JobRecord,
  datasource: DatasourceRecord,
  events: DatasourceEvents,
): Promise<DatasourceRecord | null> {
  const { retrieval: store } = context;
  const others = (await store.listJobs({ datasourceId: datasource.id, statuses: ['pending', 'running'] })).filter(
    (other) => other.id !== job.id,
  );
  if (others.length > 0) return null;
  if (datasource.status === 'pending' || datasource.status === 'running') return job.attempts > 1 ? datasource : null;
  const moved = await store.transitionDatasource(datasource.id, ['synched', 'error', 'usage_limit_reached'], {
    status: 'pending',
    updatedAt: nowIso(),
  });
  if (moved) emitStatus(events, datasource.datastoreId, datasource.id, datasource.status, 'pending', null);
  return moved;
}

/** Settles a failed job; true when it will run again (a retry, or a restart resuming it). */
async function settleFailure(
  context: RagdeskContext,
  job: JobRecord,
  events: DatasourceEvents,
  signal: AbortSignal,
  retry: RetryPolicy,
  error: unknown,
  clock: () => number,
): Promise<boolean> {
  const { retrieval: store } = context;
  const now = nowIso();
  const message = error instanceof Error ? error.message : String(error);
  const reason = signal.aborted ? (signal.reason as unknown) : undefined;
  if (reason === 'deleted') return true;
  const transient = reason === 'shutdown' || (RagdeskError.isInstance(error) && error.retryable && job.attempts < retry.maxAttempts);
  if (transient) {
    const delay = reason === 'shutdown' ? 0 : retry.baseDelayMs * 2 ** Math.max(0, job.attempts - 1);
    const retryAfter = RagdeskError.isInstance(error) && typeof error.details?.retryAfterMs === 'number' ? error.details.retryAfterMs : 0;
    const runAt = new Date(clock() + Math.max(delay, retryAfter)).toISOString();
    await store.updateJob(job.id, { status: 'pending', runAt, leaseOwner: null, leaseUntil: null, lastError: message, updatedAt: now });
    await store.transitionDatasource(job.datasourceId, ['running'], { status: 'pending', error: message, updatedAt: now });
    emitStatus(events, job.datastoreId, job.datasourceId, 'running', 'pending', message);
    return true;
  }
  const status = RagdeskError.isInstance(error) && error.code === 'usage_limit' ? 'usage_limit_reached' : 'error';
  await store.updateJob(job.id, { status: 'failed', leaseOwner: null, leaseUntil: null, lastError: message, updatedAt: now });
  await store.transitionDatasource(job.datasourceId, ['running'], { status, error: message, updatedAt: now });
  emitStatus(events, job.datastoreId, job.datasourceId, 'running', status, message);
  return false;
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
