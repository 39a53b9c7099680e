import { describe, expect, it } from 'vitest';
import { KeyedMutex } from '../../src/util/keyed-mutex.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A task that records its start and end and finishes when `release` is called. */
function gate(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  const work = async (): Promise<string> => {
    log.push(`${name} start`);
    await done;
    log.push(`${name} end`);
    return name;
  };
  return { work, release: () => release() };
}

describe('KeyedMutex', () => {
  it('runs tasks of one key one at a time, in the order they were queued', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const a = gate(log, 'a');
    const b = gate(log, 'b');
    const c = gate(log, 'c');
    const results = [mutex.run('k', a.work), mutex.run('k', b.work), mutex.run('k', c.work)];
    await tick();
    expect(log).toEqual(['a start']);
    c.release();
    b.release();
    await tick();
    expect(log).toEqual(['a start']);
    a.release();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
  });

  it('runs tasks of different keys concurrently', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const one = gate(log, 'one');
    const two = gate(log, 'two');
    const results = [mutex.run('x', one.work), mutex.run('y', two.work)];
    await tick();
    expect(log).toEqual(['one start', 'two start']);
    two.release();
    one.release();
    await Promise.all(results);
  });

  it('a task that throws or rejects releases the key; its caller gets the error', async () => {
    const mutex = new KeyedMutex();
    const failed = mutex.run('k', () => {
      throw new Error('sync boom');
    });
    const rejected = mutex.run('k', async () => Promise.reject(new Error('async boom')));
    const next = mutex.run('k', async () => 'after');
    await expect(failed).rejects.toThrow('sync boom');
    await expect(rejected).rejects.toThrow('async boom');
    await expect(next).resolves.toBe('after');
  });

  it('idle() waits for every queued task of every key, including ones queued meanwhile', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const a = gate(log, 'a');
    const first = mutex.run('x', a.work);
    let idle = false;
    const waiting = mutex.idle().then(() => (idle = true));
    const later = mutex.run('y', async () => log.push('y ran'));
    await tick();
    expect(idle).toBe(false);
    a.release();
    await waiting;
    expect(log).toEqual(['a start', 'y ran', 'a end']);
    await Promise.all([first, later]);
    await mutex.idle();
  });
});
