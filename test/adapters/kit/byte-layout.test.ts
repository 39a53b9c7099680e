import { describe, expect, it } from 'vitest';
import { align4, fourByteAligned } from '../../../adapters/kit/byte-layout.js';

describe('byte layout', () => {
  it('rounds lengths up to a multiple of 4', () => {
    expect([0, 1, 3, 4, 5, 8].map(align4)).toEqual([0, 4, 4, 4, 8, 8]);
  });

  it('keeps bytes that start at a multiple of 4 and copies the others to a memory of their own', () => {
    const memory = new ArrayBuffer(16);
    new Uint8Array(memory).forEach((_, i, all) => (all[i] = i));
    const aligned = new Uint8Array(memory, 4, 8);
    expect(fourByteAligned(aligned)).toBe(aligned);
    const odd = new Uint8Array(memory, 3, 8);
    const copy = fourByteAligned(odd);
    expect(copy).not.toBe(odd);
    expect(copy.byteOffset).toBe(0);
    expect(Array.from(copy)).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
    expect(new Int32Array(copy.buffer, 4, 1)[0]).toBe(new DataView(odd.buffer, 7, 4).getInt32(0, true));
  });
});
