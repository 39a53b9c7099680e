import { nextTurn } from '../../src/util/next-turn.js';
import { sliceClockNow } from '../../src/util/slice-clock.js';

/**
 * Bounds the request work one event-loop turn runs, so a burst cannot hold the loop.
 *
 * Most of a request's work is synchronous once it starts (SQLite, the vector index, the offline
 * embedder and tokenizer answer without real I/O), and so is handling one chunk of a model's
 * stream; each runs as one chain of microtasks up to its next real I/O. When 100 requests (or the
 * chunks of 100 streams) are ready in one poll phase, node runs all of their chains back to back
 * before any timer or other callback: the soak measured 0.9 s turns at 100 concurrent agent
 * queries.
 *
 * A task (a request, or the next chunk of a stream) starts at once while the current window has
 * run less than `budgetMs`. Past that it waits for the next check phase (`setImmediate`), where
 * the waiting tasks run one immediate each, in the order they arrived, each checking the budget of
 * the window as it resumes; those still over budget wait for the following iteration. A window
 * ends in the timers phase (a 0 ms timeout), never inside a check phase: closing it from an
 * immediate let the waiters queued after that immediate open a second window in the same check
 * phase, so one turn ran twice the budget. So a turn runs about `budgetMs` of task work (plus the
 * last task's own length), timers and I/O run between turns, and total throughput stays the same:
 * only the order changes.
 */
export class TurnGate {
  /** When the current window began; a window ends at the next timers phase. */
  private windowStart = 0;
  private windowOpen = false;

  constructor(private readonly budgetMs: number) {}

  /** Undefined when the task may start now; otherwise a promise that resolves when it may. */
  enter(): Promise<void> | undefined {
    return this.withinBudget() ? undefined : this.later();
  }

  private async later(): Promise<void> {
    // Each waiter resumes from its own immediate, so its chain runs (and is timed) before the
    // next waiter checks the budget.
    do {
      await nextTurn();
    } while (!this.withinBudget());
  }

  private withinBudget(): boolean {
    const now = sliceClockNow();
    if (!this.windowOpen) {
      this.windowOpen = true;
      this.windowStart = now;
      // Unref'd: an idle process need not stay up for it, and waiters keep the loop alive anyway.
      setTimeout(() => {
        this.windowOpen = false;
      }, 0).unref();
    }
    return now - this.windowStart < this.budgetMs;
  }
}
