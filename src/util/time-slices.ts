import { nextTurn } from './next-turn.js';
import { sliceClockNow } from './slice-clock.js';

/**
 * Hands the event loop back once a slice of synchronous work has run. Awaiting a settled promise
 * only queues a microtask, so a loop of small synchronous steps joined by `await`s (thousands of
 * table sections cleaned one by one) is still one event-loop turn; a pause point that yields only
 * when the slice is used up keeps each turn near `sliceMs` without paying a turn per step.
 */
export class TimeSlices {
  private sliceStarted = sliceClockNow();

  constructor(private readonly sliceMs = 8) {}

  /** Whether the slice is used up (for loops too hot to await {@link pause} at every step). */
  get due(): boolean {
    return sliceClockNow() - this.sliceStarted >= this.sliceMs;
  }

  /** Resolves at once while the slice lasts; past it, after the next check phase (`setImmediate`). */
  async pause(): Promise<void> {
    if (this.due) await this.nextSlice();
  }

  /** Hands the loop back now and starts a new slice. */
  async nextSlice(): Promise<void> {
    await nextTurn();
    this.sliceStarted = sliceClockNow();
  }
}
