import { describe, expect, it } from 'vitest';
import { decodeText } from '../../../adapters/loaders/text-decode.js';

const bytes = (...values: number[]) => new Uint8Array(values);

describe('decodeText', () => {
  it('reads UTF-8 with or without a byte-order mark, which is removed', () => {
    expect(decodeText(new TextEncoder().encode('naïve ✓'))).toBe('naïve ✓');
    expect(decodeText(bytes(0xef, 0xbb, 0xbf, 0x61))).toBe('a');
  });

  it('reads UTF-16 in either byte order when it has a byte-order mark', () => {
    expect(decodeText(bytes(0xff, 0xfe, 0x68, 0x00, 0xe9, 0x00))).toBe('hé');
    expect(decodeText(bytes(0xfe, 0xff, 0x00, 0x68, 0x00, 0xe9))).toBe('hé');
  });

  it('reads Shift_JIS when high bytes come in pairs and the bytes are not UTF-8', () => {
    // 日本 in Shift_JIS, then ASCII.
    expect(decodeText(bytes(0x93, 0xfa, 0x96, 0x7b, 0x2c, 0x31))).toBe('日本,1');
  });

  it('falls back to Windows-1252 for lone high bytes', () => {
    expect(decodeText(bytes(0x63, 0x61, 0x66, 0xe9, 0x20, 0x93, 0x71, 0x94))).toBe('café “q”');
  });

  it('refuses binary: a NUL byte, or more than 1 % control characters', () => {
    expect(decodeText(bytes(0x61, 0x00, 0x62))).toBeUndefined();
    expect(decodeText(bytes(...Array<number>(98).fill(0x61), 0x01, 0x02))).toBeUndefined();
    expect(decodeText(bytes(...Array<number>(99).fill(0x61), 0x01))).toBe(`${'a'.repeat(99)}\u0001`);
    // Tab, line feed, form feed, carriage return and escape are text.
    expect(decodeText(bytes(0x09, 0x0a, 0x0c, 0x0d, 0x1b))).toBe('\t\n\f\r\u001b');
  });
});
