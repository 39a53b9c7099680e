import { describe, expect, it } from 'vitest';
import { decodeWindows1252 } from '../../../adapters/kit/windows-1252.js';

describe('decodeWindows1252', () => {
  it('maps 0x80-0x9F to the Windows-1252 characters, not to C1 controls', () => {
    expect(decodeWindows1252(new Uint8Array([0x80, 0x20, 0x93, 0x71, 0x94, 0x96, 0x99, 0x9f]))).toBe('€ “q”–™Ÿ');
  });

  it('reads ASCII and 0xA0-0xFF as ISO-8859-1, and keeps the five undefined bytes', () => {
    expect(decodeWindows1252(new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0xa0, 0xff]))).toBe('café\u00a0ÿ');
    expect(decodeWindows1252(new Uint8Array([0x81, 0x8d, 0x8f, 0x90, 0x9d]))).toBe('\u0081\u008d\u008f\u0090\u009d');
  });

  it('decodes a view into a larger buffer by its own bytes only', () => {
    const whole = new Uint8Array([0x41, 0x80, 0x42, 0x43]);
    expect(decodeWindows1252(whole.subarray(1, 3))).toBe('€B');
  });
});
