import { describe, expect, it } from 'vitest';
import { guardedMethods, type MethodGuard } from '../../../adapters/kit/guarded-methods.js';

interface Port {
  readonly name: string;
  get(id: string): Promise<string | null>;
  fail(): Promise<void>;
  failLater(): Promise<void>;
  iterateChunks(): AsyncIterable<number[]>;
  close(): Promise<void>;
}

/** A guard that refuses calls once `closed` is set and tags translated errors with the method. */
function guardOf(state: { closed: boolean; calls: number }): MethodGuard {
  return {
    before() {
      state.calls += 1;
      if (state.closed) throw new Error('closed');
    },
    translate(error, action) {
      return new Error(`${action}: ${(error as Error).message}`);
    },
  };
}

function portOf(state: { closed: boolean; calls: number }): Port {
  let closes = 0;
  return guardedMethods<Port>(
    {
      name: 'test',
      get: (id: string) => (id === 'a' ? 'A' : null),
      fail: () => {
        throw new Error('driver said no');
      },
      failLater: () => Promise.reject(new Error('later')),
      async *iterateChunks() {
        yield [1, 2];
        yield [3];
      },
      close: async () => {
        closes += 1;
        state.closed = closes > 0;
      },
    },
    guardOf(state),
  );
}

describe('guardedMethods', () => {
  it('turns a plain result into a promise and copies properties that are not functions', async () => {
    const state = { closed: false, calls: 0 };
    const port = portOf(state);
    const result = port.get('a');
    expect(result).toBeInstanceOf(Promise);
    expect(await result).toBe('A');
    expect(await port.get('b')).toBeNull();
    expect(port.name).toBe('test');
    expect(state.calls).toBe(2);
  });

  it('translates thrown and rejected errors with the method name, never throwing synchronously', async () => {
    const port = portOf({ closed: false, calls: 0 });
    let call: Promise<void> | undefined;
    expect(() => {
      call = port.fail();
    }).not.toThrow();
    await expect(call).rejects.toThrow('fail: driver said no');
    await expect(port.failLater()).rejects.toThrow('failLater: later');
  });

  it('refuses every method after close but leaves close itself unguarded', async () => {
    const state = { closed: false, calls: 0 };
    const port = portOf(state);
    await port.close();
    await expect(port.get('a')).rejects.toThrow('get: closed');
    await expect(port.close()).resolves.toBeUndefined();
  });

  it('guards a paging read when its first page is asked for', async () => {
    const state = { closed: false, calls: 0 };
    const port = portOf(state);
    const pages: number[][] = [];
    for await (const page of port.iterateChunks()) pages.push(page);
    expect(pages).toEqual([[1, 2], [3]]);
    const later = port.iterateChunks();
    state.closed = true;
    await expect(later[Symbol.asyncIterator]().next()).rejects.toThrow('iterateChunks: closed');
  });
});
