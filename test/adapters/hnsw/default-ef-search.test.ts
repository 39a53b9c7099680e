import { describe, expect, it } from 'vitest';
import { defaultEfSearch, HNSW_DEFAULTS, resolveOptions } from '../../../adapters/hnsw/options.js';

describe('defaultEfSearch', () => {
  it('keeps the base beam up to 300k entries, reaches 256 at 400k and stays there', () => {
    expect(defaultEfSearch(0)).toBe(HNSW_DEFAULTS.efSearch);
    expect(defaultEfSearch(100_000)).toBe(100);
    expect(defaultEfSearch(300_000)).toBe(100);
    expect(defaultEfSearch(350_000)).toBe(178);
    expect(defaultEfSearch(400_000)).toBe(256);
    expect(defaultEfSearch(500_000)).toBe(256);
    expect(defaultEfSearch(1_000_000)).toBe(256);
    expect(defaultEfSearch(50_000_000)).toBe(256);
  });

  it('never shrinks as the collection grows', () => {
    let previous = 0;
    for (let count = 0; count <= 2_000_000; count += 7_919) {
      const ef = defaultEfSearch(count);
      expect(ef).toBeGreaterThanOrEqual(previous);
      previous = ef;
    }
  });

  it('applies only when no efSearch is given', () => {
    expect(resolveOptions({ dir: 'x' }).efSearch).toBeUndefined();
    expect(resolveOptions({ dir: 'x', efSearch: 64 }).efSearch).toBe(64);
  });
});
