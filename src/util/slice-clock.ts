/**
 * The clock that time-sliced work reads to decide when to hand the event loop back (chunking, the
 * local embedder, index builds, big writes). Production reads `performance.now()`. Tests install a
 * clock that advances by a fixed step per read, so whether a loop yields depends on how much work it
 * did, not on how fast the machine ran it. Not part of the package's exports.
 */
const realClock = (): number => performance.now();
let read: () => number = realClock;

export function sliceClockNow(): number {
  return read();
}

/** Test seam: install a clock (or restore the real one with `undefined`). */
export function setSliceClock(clock: (() => number) | undefined): void {
  read = clock ?? realClock;
}

/** A clock for tests that advances `stepMs` at every read: each pause check counts as that much work. */
export function steppingClock(stepMs: number): () => number {
  let now = 0;
  return () => (now += stepMs);
}
