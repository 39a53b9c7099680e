import { describe, expect, it } from 'vitest';
import { PackedStrings } from '../../../adapters/kit/packed-strings.js';
import { StringInterner } from '../../../adapters/kit/string-interner.js';

describe('StringInterner', () => {
  it('numbers names in order of first use and gives a known name its number', () => {
    const names = new StringInterner();
    expect([names.intern('b'), names.intern('a'), names.intern('b'), names.intern('')]).toEqual([0, 1, 0, 2]);
    expect(names.numberOf('a')).toBe(1);
    expect(names.numberOf('zzz')).toBeUndefined();
    expect(names.name(2)).toBe('');
    expect(names.size).toBe(3);
    expect(names.packed().toArray()).toEqual(['b', 'a', '']);
  });

  it('takes loaded names as 0..n-1, hands them back packed as they came, and continues after them', () => {
    const loaded = PackedStrings.of(['x', 'y', 'z😀']);
    const names = new StringInterner(loaded);
    expect(names.packed()).toBe(loaded);
    expect(names.name(2)).toBe('z😀');
    expect(names.numberOf('y')).toBe(1);
    expect(names.intern('w')).toBe(3);
    expect(names.packed().toArray()).toEqual(['x', 'y', 'z😀', 'w']);
  });

  it('rebuilds its map after forgetLookups, with the same numbers', () => {
    const names = new StringInterner();
    for (const name of ['p', 'q', 'r']) names.intern(name);
    names.forgetLookups();
    expect(['r', 'p', 'q'].map((name) => names.numberOf(name))).toEqual([2, 0, 1]);
    expect(names.intern('s')).toBe(3);
  });

  it('retires a number: its name resolves no more and comes back under a new number', () => {
    let live = new Set([0, 1]);
    const names = new StringInterner(PackedStrings.of(['a', 'b']), (number) => live.has(number));
    expect(names.numberOf('a')).toBe(0);
    names.retire(0);
    live = new Set([1]);
    expect(names.numberOf('a')).toBeUndefined();
    expect(names.name(0)).toBe('');
    expect(names.intern('a')).toBe(2);
    live.add(2);
    // A rebuilt map skips numbers that are not live, even with their name read back as ''.
    names.forgetLookups();
    expect(names.numberOf('a')).toBe(2);
    expect(names.numberOf('')).toBeUndefined();
  });

  it('retiring a number another one has taken over leaves the other in the map', () => {
    const names = new StringInterner();
    names.intern('a');
    names.retire(0);
    expect(names.intern('a')).toBe(1);
    names.retire(0);
    expect(names.numberOf('a')).toBe(1);
  });
});
