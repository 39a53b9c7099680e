import { afterEach, describe, expect, it } from 'vitest';
import { TurnGate } from '../../adapters/http/turns.js';
import { setSliceClock } from '../../src/util/slice-clock.js';

/**
 * The gate reads the slice clock; here a task "works" `ms` by moving that clock, so how many tasks
 * fit in a turn depends on the work they declare, not on the machine's speed.
 */
let now = 0;
function work(ms: number): void {
  now += ms;
}

/**
 * Runs `count` tasks of `ms` each that all become ready in the same turn, and counts how many run
 * in each turn of the event loop: a ticker immediate queued first runs first in every check phase.
 */
async function burst(count: number, ms: number, gate: TurnGate | null): Promise<{ perTurn: number[]; order: number[] }> {
  const order: number[] = [];
  const perTurn: number[] = [];
  let sinceTick = 0;
  let running = true;
  const tick = (): void => {
    if (sinceTick > 0) perTurn.push(sinceTick);
    sinceTick = 0;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const wait = gate?.enter();
      if (wait) await wait;
      work(ms);
      order.push(index);
      sinceTick++;
    }),
  );
  running = false;
  if (sinceTick > 0) perTurn.push(sinceTick);
  return { perTurn, order };
}

describe('TurnGate', () => {
  afterEach(() => setSliceClock(undefined));

  it('without it, a burst runs in one turn', async () => {
    setSliceClock(() => now);
    const { perTurn } = await burst(40, 2, null);
    expect(perTurn).toEqual([40]);
  });

  it('lets in its budget of work per turn, in arrival order, and lets the loop turn in between', async () => {
    setSliceClock(() => now);
    const { perTurn, order } = await burst(40, 2, new TurnGate(10));
    // 10 ms of budget at 2 ms a task: 5 tasks start in a window, and a window spans one turn.
    expect(Math.max(...perTurn)).toBe(5);
    expect(perTurn.reduce((sum, tasks) => sum + tasks, 0)).toBe(40);
    expect(order).toEqual(Array.from({ length: 40 }, (_, index) => index));
  });

  it('adds no wait when the loop is idle', async () => {
    const gate = new TurnGate(10);
    for (let i = 0; i < 5; i++) {
      expect(gate.enter()).toBeUndefined();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  });
});
