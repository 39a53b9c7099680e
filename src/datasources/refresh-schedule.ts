/**
 * Refresh schedules of web datasources (`config.refresh: { every }`): after each sync a `refresh`
 * job is stored with its `runAt` one interval later, so the schedule is the durable job queue's
 * and survives restarts. At most one pending refresh job exists per datasource.
 */
import { z } from 'zod';
import type { RagdeskContext } from '../context.js';
import type { DatasourceRecord, JobRecord } from '../ports/records.js';
import { newId } from '../util/ids.js';

const MINUTE = 60_000;
const NAMED: Record<string, number> = { hourly: 60 * MINUTE, daily: 24 * 60 * MINUTE, weekly: 7 * 24 * 60 * MINUTE };
const UNIT: Record<string, number> = { m: MINUTE, h: 60 * MINUTE, d: 24 * 60 * MINUTE };
/** Shorter than this and a schedule is a crawler hammering a site. */
const SHORTEST_MS = 5 * MINUTE;
const LONGEST_MS = 365 * 24 * 60 * MINUTE;

/** `hourly`, `daily`, `weekly`, or a count of minutes, hours or days (`90m`, `12h`, `3d`); null when it is none of them. */
function intervalMs(every: string): number | null {
  const named = NAMED[every];
  if (named !== undefined) return named;
  const match = /^([1-9]\d{0,5})([mhd])$/.exec(every);
  if (!match) return null;
  const ms = Number(match[1]) * UNIT[match[2]!]!;
  return ms >= SHORTEST_MS && ms <= LONGEST_MS ? ms : null;
}

/** `config.refresh` of a web datasource: `{ every }`, or null / absent for no schedule. */
export const refreshSchema = z
  .object({
    every: z.string().refine((every) => intervalMs(every) !== null, {
      message: 'must be hourly, daily, weekly or a count of minutes, hours or days (90m, 12h, 3d) between 5m and 365d',
    }),
  })
  .strict()
  .nullable();

/** The datasource's refresh interval, or null when it has none. */
function refreshIntervalOf(record: Pick<DatasourceRecord, 'type' | 'config'>): number | null {
  if (record.type !== 'web_page' && record.type !== 'web_site') return null;
  const refresh = record.config.refresh as { every?: unknown } | null | undefined;
  return typeof refresh?.every === 'string' ? intervalMs(refresh.every) : null;
}

/** The datasource's pending refresh job, if it has one. */
export async function pendingRefresh(context: RagdeskContext, datasourceId: string): Promise<JobRecord | undefined> {
  const pending = await context.retrieval.listJobs({ datasourceId, statuses: ['pending'] });
  return pending.find((job) => job.kind === 'refresh');
}

/**
 * Sets the datasource's next refresh one interval after `from` (ms): moves its pending refresh job,
 * or stores one; without a schedule, cancels it. Returns the job's `runAt`, or null.
 */
export async function scheduleRefresh(
  context: RagdeskContext,
  record: DatasourceRecord,
  from: number,
  now: number,
): Promise<string | null> {
  if (record.type !== 'web_page' && record.type !== 'web_site') return null;
  const interval = refreshIntervalOf(record);
  const existing = await pendingRefresh(context, record.id);
  const at = new Date(now).toISOString();
  if (interval === null) {
    if (existing) await context.retrieval.updateJob(existing.id, { status: 'cancelled', updatedAt: at });
    return null;
  }
  const runAt = new Date(from + interval).toISOString();
  if (existing) {
    await context.retrieval.updateJob(existing.id, { runAt, updatedAt: at });
    return runAt;
  }
  await context.retrieval.createJob({
    id: newId(),
    kind: 'refresh',
    datastoreId: record.datastoreId,
    datasourceId: record.id,
    status: 'pending',
    attempts: 0,
    runAt,
    leaseOwner: null,
    leaseUntil: null,
    lastError: null,
    createdAt: at,
    updatedAt: at,
  });
  return runAt;
}
