import { afterEach, describe, expect, it } from 'vitest';
import { setSliceClock } from '../../src/util/slice-clock.js';
import { TimeSlices } from '../../src/util/time-slices.js';

/** A clock the test moves by hand: the slice is used up when the test says so, whatever the speed. */
function manualClock(): { read: () => number; advance: (ms: number) => void } {
  let now = 0;
  return { read: () => now, advance: (ms) => (now += ms) };
}

describe('TimeSlices', () => {
  afterEach(() => setSliceClock(undefined));

  it('does not hand the loop back while the slice lasts', async () => {
    const clock = manualClock();
    setSliceClock(clock.read);
    const slices = new TimeSlices(50);
    let immediateRan = false;
    setImmediate(() => {
      immediateRan = true;
    });
    clock.advance(49);
    await slices.pause();
    await slices.pause();
    expect(slices.due).toBe(false);
    expect(immediateRan).toBe(false);
  });

  it('hands the loop back once the slice is used up, then starts a new slice', async () => {
    const clock = manualClock();
    setSliceClock(clock.read);
    const slices = new TimeSlices(30);
    let immediates = 0;
    setImmediate(() => immediates++);
    clock.advance(30);
    expect(slices.due).toBe(true);
    await slices.pause();
    expect(immediates).toBe(1);
    setImmediate(() => immediates++);
    await slices.pause();
    expect(immediates).toBe(1);
  });
});
