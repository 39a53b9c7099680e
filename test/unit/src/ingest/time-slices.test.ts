import { describe, expect, it } from 'vitest';
import { TimeSlices } from '../../../../src/ingest/time-slices.js';

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // burn the slice
  }
}

describe('TimeSlices', () => {
  it('does not hand the loop back while the slice lasts', async () => {
    const slices = new TimeSlices(50);
    let immediateRan = false;
    setImmediate(() => {
      immediateRan = true;
    });
    await slices.pause();
    await slices.pause();
    expect(immediateRan).toBe(false);
  });

  it('hands the loop back once the slice is used up, then starts a new slice', async () => {
    const slices = new TimeSlices(30);
    let immediates = 0;
    setImmediate(() => immediates++);
    busy(40);
    await slices.pause();
    expect(immediates).toBe(1);
    setImmediate(() => immediates++);
    await slices.pause();
    expect(immediates).toBe(1);
  });
});
