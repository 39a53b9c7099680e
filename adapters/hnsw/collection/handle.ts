import { RagdeskError } from '../../../src/errors.js';
import type { Collection } from './collection.js';
import { writeGeneration } from '../files/persistence.js';

/**
 * A collection's turn in the index's `KeyedMutex`. The background flush writes the graph from a
 * native worker thread; a mutation (or a resize, which reallocates) during that write would corrupt
 * the file or crash, so every mutation and flush of a collection runs through it.
 */
export interface SerialQueue {
  run<T>(task: () => T | Promise<T>): Promise<T>;
}

export interface FlushPolicy {
  flushAfterMs: number;
  flushAfterChanges: number;
}

/** setTimeout clamps longer delays to 1 ms, so they mean "no timer" here. */
const MAX_TIMER_MS = 2_147_483_647;

/** Writes a new generation of the collection's files and marks it clean. Run inside its queue. */
export async function writeState(state: Collection, directory: string): Promise<void> {
  const generation = state.generation + 1;
  try {
    // hnswlib writes its whole file, and the links-only file is cut from it: the store already
    // holds the live vectors (graph-file.ts).
    await writeGeneration(directory, state.toHeaderContent(generation), (path) => state.write(`${path}.full.tmp`, path));
  } catch (error) {
    throw new RagdeskError('internal', `failed to write the hnsw index of ${state.identity.datastoreId}`, {
      cause: error,
      retryable: true,
    });
  }
  state.generation = generation;
  state.dirty = false;
  state.pendingChanges = 0;
}

/**
 * An open collection: its state, its directory and when its pending changes get written. Every
 * method that touches the graph must run inside `queue`: the native write reads the graph from a
 * worker thread, and a mutation (or a resize, which reallocates) during it would corrupt the file.
 */
export class CollectionHandle {
  private timer: NodeJS.Timeout | undefined;
  /** Set by drop/close/replacement: a late timer flush must not recreate deleted files. */
  private released = false;

  constructor(
    readonly state: Collection,
    readonly directory: string,
    private readonly queue: SerialQueue,
    private readonly policy: FlushPolicy,
  ) {}

  get isReleased(): boolean {
    return this.released;
  }

  async persist(): Promise<void> {
    this.clearTimer();
    if (this.released || !this.state.dirty) return;
    await writeState(this.state, this.directory);
  }

  /**
   * Applies a mutation, records the store sequence it brings the index to (a function: asked after
   * `apply`, for mutations that only know then whether they finished), and schedules the write.
   */
  async mutate(apply: () => number, sequenceAfter: number | (() => number)): Promise<void> {
    const { state } = this;
    let changes: number;
    try {
      changes = apply();
    } catch (error) {
      // Partly applied: never let this state be persisted as matching any store sequence.
      state.sequence = -1;
      state.dirty = true;
      throw error;
    }
    const sequence = typeof sequenceAfter === 'function' ? sequenceAfter() : sequenceAfter;
    if (changes === 0 && sequence === state.sequence) return;
    state.sequence = sequence;
    state.dirty = true;
    state.pendingChanges += changes;
    // A slice of a larger upsert (sequence -1) is not worth writing: the file would read as stale.
    if (state.pendingChanges >= this.policy.flushAfterChanges && sequence !== -1) await this.persist();
    else this.schedule();
  }

  /** Stops the timer and frees the graph; the handle is not used afterwards. */
  release(): void {
    this.clearTimer();
    if (!this.released) this.state.release();
    this.released = true;
  }

  /** Idle timer: restarted by every change, so a long ingest is written once, when it pauses. */
  private schedule(): void {
    const delay = this.policy.flushAfterMs;
    if (!Number.isFinite(delay) || delay > MAX_TIMER_MS) return;
    if (this.timer) {
      this.timer.refresh();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // A failed background write leaves the collection dirty; flush/close retry and report it.
      this.queue.run(() => this.persist()).catch(() => undefined);
    }, delay);
    // Pending writes must not keep the process alive; a missed write only costs a rebuild.
    this.timer.unref();
  }

  private clearTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
