import PQueue from 'p-queue';
import type { RagdeskContext } from '../context.js';
import type { JobRecord } from '../ports/records.js';
import type { RetryPolicy } from '../ports/retry-policy.js';
import { newId, nowIso } from '../util/ids.js';
import type { DatasourceEvents } from './events.js';
import { runSyncJob, type StopReason } from './run-sync-job.js';

interface RunningJob {
  controller: AbortController;
  done: Promise<void>;
  datasourceId: string;
}

export interface JobRunnerOptions {
  /** Sync jobs running at once (default 2). */
  concurrency?: number;
  /** How long a claimed job stays this worker's without a heartbeat (default 60 s). */
  leaseMs?: number;
  retry?: Partial<RetryPolicy>;
  /**
   * @internal Test seam: the clock jobs fall due by, and the timer that wakes the runner for the
   * next one (scheduled refreshes are days apart; tests move the clock and fire the timer).
   */
  clock?: JobClock;
}

/** @internal See `JobRunnerOptions.clock`. */
export interface JobClock {
  now(): number;
  setTimer(wake: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

const realClock: JobClock = {
  now: () => Date.now(),
  setTimer: (wake, ms) => {
    // Node's timers fire at once past 2^31 - 1 ms: a weekly refresh is woken up early and looks again.
    const timer = setTimeout(wake, Math.min(ms, 2 ** 31 - 1));
    timer.unref();
    return timer;
  },
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Runs persisted sync jobs in this process. Jobs are claimed from the retrieval store with a lease, so the
 * same loop works when several processes share one database; in the embedded setup one process
 * owns the data, so jobs it finds `running` at start are its own from before a crash or restart
 * and are resumed at once instead of waiting for their lease to expire.
 */
export class JobRunner {
  private readonly owner = `worker-${newId()}`;
  private readonly queue: PQueue;
  private readonly running = new Map<string, RunningJob>();
  private readonly leaseMs: number;
  private readonly retry: RetryPolicy;
  private wakeTimer: unknown;
  private readonly clock: JobClock;
  private pumping: Promise<void> | undefined;
  private wakeAgain = false;
  private stopped = false;
  private started: Promise<void> | undefined;

  constructor(
    private readonly context: RagdeskContext,
    private readonly events: DatasourceEvents,
    options: JobRunnerOptions = {},
  ) {
    this.queue = new PQueue({ concurrency: options.concurrency ?? 2 });
    this.leaseMs = options.leaseMs ?? 60_000;
    this.clock = options.clock ?? realClock;
    this.retry = { maxAttempts: options.retry?.maxAttempts ?? 4, baseDelayMs: options.retry?.baseDelayMs ?? 1_000 };
  }

  /** Resumes jobs left behind by a previous run, then starts claiming. Idempotent. */
  start(): Promise<void> {
    this.started ??= this.resumeOrphans().then(() => this.wake());
    return this.started;
  }

  /** The time (ms) on the runner's clock. */
  now(): number {
    return this.clock.now();
  }

  /** Looks for due jobs now (after a new job was created). */
  wake(): void {
    if (this.stopped) return;
    if (this.pumping) {
      // A pass is under way and may have looked already: look again after it, or the job waits.
      this.wakeAgain = true;
      return;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
      if (this.wakeAgain) {
        this.wakeAgain = false;
        this.wake();
      }
    });
  }

  /** Stops the job of a datasource (it is being deleted); resolves when it has let go. */
  async cancel(datasourceId: string): Promise<void> {
    const affected = [...this.running.values()].filter((work) => work.datasourceId === datasourceId);
    for (const work of affected) work.controller.abort('deleted' satisfies StopReason);
    await Promise.all(affected.map((work) => work.done));
  }

  /** Stops claiming, interrupts running jobs (they go back to `pending`) and waits for them. */
  async close(): Promise<void> {
    this.stopped = true;
    this.clearWakeTimer();
    await this.pumping;
    for (const work of this.running.values()) work.controller.abort('shutdown' satisfies StopReason);
    await Promise.all([...this.running.values()].map((work) => work.done));
    await this.queue.onIdle();
  }

  private async resumeOrphans(): Promise<void> {
    const orphans = await this.context.retrieval.listJobs({ statuses: ['running'] });
    for (const job of orphans) {
      await this.context.retrieval.updateJob(job.id, {
        status: 'pending',
        runAt: new Date(this.clock.now()).toISOString(),
        leaseOwner: null,
        leaseUntil: null,
        updatedAt: nowIso(),
      });
    }
  }

  private async pump(): Promise<void> {
    while (!this.stopped && this.running.size < this.queue.concurrency) {
      const now = new Date(this.clock.now());
      const job = await this.context.retrieval.claimJob({
        owner: this.owner,
        now: now.toISOString(),
        leaseUntil: new Date(now.getTime() + this.leaseMs).toISOString(),
      });
      if (!job) break;
      this.launch(job);
    }
    await this.scheduleNextWake();
  }

  private launch(job: JobRecord): void {
    const controller = new AbortController();
    const heartbeat = setInterval(
      () => {
        void this.context.retrieval
          .updateJob(job.id, { leaseUntil: new Date(this.clock.now() + this.leaseMs).toISOString() })
          .catch(() => undefined);
      },
      Math.max(1_000, this.leaseMs / 3),
    );
    heartbeat.unref();
    const done = this.queue
      .add(() => runSyncJob(this.context, job, this.events, controller.signal, this.retry, () => this.clock.now()))
      .catch(() => undefined)
      .finally(() => {
        clearInterval(heartbeat);
        this.running.delete(job.id);
        this.wake();
      });
    this.running.set(job.id, { controller, done, datasourceId: job.datasourceId });
  }

  /** Sleeps until the earliest retry is due, so backoff needs no polling. */
  private async scheduleNextWake(): Promise<void> {
    this.clearWakeTimer();
    if (this.stopped) return;
    const pending = await this.context.retrieval.listJobs({ statuses: ['pending'] });
    const next = pending.reduce<number | undefined>((soonest, job) => {
      const at = Date.parse(job.runAt);
      return soonest === undefined || at < soonest ? at : soonest;
    }, undefined);
    if (next === undefined) return;
    this.wakeTimer = this.clock.setTimer(() => this.wake(), Math.max(10, next - this.clock.now()));
  }

  private clearWakeTimer(): void {
    if (this.wakeTimer !== undefined) this.clock.clearTimer(this.wakeTimer);
    this.wakeTimer = undefined;
  }
}
