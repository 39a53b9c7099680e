import { describe, expect, it } from 'vitest';
import { PackedStrings, readPacked } from '../../../adapters/kit/packed-strings.js';

const SAMPLE = ['', 'a', 'chunk-0001', 'naïve', '中文', '𠀀', '\ufa0e', 'a'.repeat(300)];

describe('PackedStrings', () => {
  it('gives back every string, one at a time or all at once', () => {
    const packed = PackedStrings.of(SAMPLE);
    expect(packed.length).toBe(SAMPLE.length);
    expect(SAMPLE.map((_, i) => packed.at(i))).toEqual(SAMPLE);
    expect(packed.toArray()).toEqual(SAMPLE);
    expect(PackedStrings.of([]).toArray()).toEqual([]);
  });

  it('survives serialization at any 4-byte offset, views on the same memory', () => {
    const packed = PackedStrings.of(SAMPLE);
    const bytes = new Uint8Array(12 + packed.serializedLength + 4).fill(0xee);
    const end = packed.serializeInto(bytes, 12);
    expect(end).toBe(12 + packed.serializedLength);
    expect(end % 4).toBe(0);
    const { strings, next } = readPacked(bytes, 12);
    expect(next).toBe(end);
    expect(strings.toArray()).toEqual(SAMPLE);
    expect(strings.bytes.buffer).toBe(bytes.buffer);
    expect(readPacked(packed.serialize(), 0).strings.toArray()).toEqual(SAMPLE);
  });

  it('refuses bytes that do not hold a list, and never reads past them through damaged offsets', () => {
    const serialized = PackedStrings.of(SAMPLE).serialize();
    expect(() => readPacked(serialized.subarray(0, serialized.length - 8), 0)).toThrow(/cut short/);
    expect(() => readPacked(new Uint8Array(4), 0)).toThrow(/cut short/);
    expect(() => new PackedStrings(new Uint8Array(3), Uint32Array.of(1, 2))).toThrow(/end/);
    expect(() => new PackedStrings(new Uint8Array(3), new Uint32Array(0))).toThrow(/end/);
    // Offsets out of order or past the bytes: each string reads only what they cover.
    const damaged = new PackedStrings(Buffer.from('abcdef'), Uint32Array.of(4, 2, 9, 6));
    expect(damaged.toArray()).toEqual(['abcd', '', 'cdef', '']);
    expect(damaged.compare(1, 3)).toBe(0);
    expect(damaged.compareTo(1, Buffer.from('a'))).toBeLessThan(0);
    expect(damaged.compareTo(2, Buffer.from('cdef'))).toBe(0);
    expect(damaged.compareTo(2, Buffer.from('cdefgh'))).toBeLessThan(0);
  });

  it('orders by code point (UTF-8 bytes), not by UTF-16 units', () => {
    const packed = PackedStrings.of(['\ufa0e', '𠀀', 'a', 'ab', 'b']);
    expect('\ufa0e' < '𠀀').toBe(false); // JavaScript's order
    expect(packed.compare(0, 1)).toBeLessThan(0);
    expect(packed.compare(2, 3)).toBeLessThan(0);
    expect(packed.compare(3, 4)).toBeLessThan(0);
    expect(packed.compare(4, 4)).toBe(0);
    expect(packed.compareTo(3, Buffer.from('ab'))).toBe(0);
    expect(packed.compareTo(3, Buffer.from('abc'))).toBeLessThan(0);
    expect(packed.compareTo(3, Buffer.from('a'))).toBeGreaterThan(0);
    expect(PackedStrings.of(['\ufa0e', '𠀀', 'a']).isStrictlyAscending()).toBe(false);
    expect(PackedStrings.of(['a', 'ab', 'b', '\ufa0e', '𠀀']).isStrictlyAscending()).toBe(true);
    expect(PackedStrings.of(['a', 'a']).isStrictlyAscending()).toBe(false);
  });

  it('finds a string of an ascending list by binary search, and nothing for one not in it', () => {
    const sorted = ['', 'a', 'ab', 'b', 'naïve', '\ufa0e', '𠀀'];
    const packed = PackedStrings.of(sorted);
    expect(packed.isStrictlyAscending()).toBe(true);
    sorted.forEach((value, i) => expect(packed.indexOfSorted(value)).toBe(i));
    for (const absent of ['aa', 'c', 'naive', '中', '𠀁']) expect(packed.indexOfSorted(absent)).toBeUndefined();
    expect(PackedStrings.of([]).indexOfSorted('a')).toBeUndefined();
  });
});
