import { describe, expect, it } from 'vitest';
import { TurnGate } from '../../adapters/http/turns.js';

/** Burns `ms` of CPU synchronously, like a request's retrieval or a stream chunk's parsing. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

/**
 * Runs `count` tasks of `ms` each that all become ready in the same turn, and counts how many run
 * between two ticks of a 1 ms interval timer (a stand-in for every timer and I/O callback).
 */
async function burst(count: number, ms: number, gate: TurnGate | null): Promise<{ perTurn: number[]; order: number[] }> {
  const order: number[] = [];
  const perTurn: number[] = [];
  let sinceTick = 0;
  const ticker = setInterval(() => {
    if (sinceTick > 0) perTurn.push(sinceTick);
    sinceTick = 0;
  }, 1);
  await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const wait = gate?.enter();
      if (wait) await wait;
      busy(ms);
      order.push(index);
      sinceTick++;
    }),
  );
  clearInterval(ticker);
  if (sinceTick > 0) perTurn.push(sinceTick);
  return { perTurn, order };
}

describe('TurnGate', () => {
  it('without it, a burst runs in one turn: no timer fires until every task has run', async () => {
    const { perTurn } = await burst(40, 2, null);
    expect(Math.max(...perTurn)).toBe(40);
  });

  it('lets in about its budget of work per turn, in arrival order, and runs timers in between', async () => {
    const { perTurn, order } = await burst(40, 2, new TurnGate(10));
    // 10 ms of budget at 2 ms a task: at most 5 tasks start in a turn, plus the one that overshoots.
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(6);
    expect(perTurn.length).toBeGreaterThanOrEqual(7);
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
