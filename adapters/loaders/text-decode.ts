import { decodeWindows1252 } from '../kit/windows-1252.js';

/**
 * Decides whether bytes are text and decodes them. UTF-8 (with or without BOM) and UTF-16 with a BOM
 * are read as such; other bytes without NULs and with few control characters are read as Shift_JIS
 * when their high bytes come in pairs (as in Japanese text, e.g. Excel's CSV export on Windows), else
 * as Windows-1252. Returns `undefined` for binary data.
 */
export function decodeText(bytes: Uint8Array): string | undefined {
  if (startsWith(bytes, [0xef, 0xbb, 0xbf])) return decodeStrict('utf-8', bytes.subarray(3));
  if (startsWith(bytes, [0xff, 0xfe])) return decodeStrict('utf-16le', bytes.subarray(2));
  if (startsWith(bytes, [0xfe, 0xff])) return decodeStrict('utf-16be', bytes.subarray(2));
  if (!looksLikeText(bytes)) return undefined;
  const utf8 = decodeStrict('utf-8', bytes);
  if (utf8 !== undefined) return utf8;
  if (highBytesComeInPairs(bytes)) {
    const japanese = decodeStrict('shift_jis', bytes);
    if (japanese !== undefined) return japanese;
  }
  return decodeWindows1252(bytes);
}

/** Controls other than tab, line feed, form feed, carriage return and escape mark binary data. */
const CONTROL_SHARE_LIMIT = 0.01;

function looksLikeText(bytes: Uint8Array): boolean {
  let controls = 0;
  for (const byte of bytes) {
    if (byte === 0) return false;
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d && byte !== 0x1b) controls++;
  }
  return controls <= bytes.length * CONTROL_SHARE_LIMIT;
}

function highBytesComeInPairs(bytes: Uint8Array): boolean {
  let high = 0;
  let paired = 0;
  for (let index = 0; index < bytes.length; index++) {
    if ((bytes[index] as number) < 0x80) continue;
    high++;
    if ((bytes[index - 1] ?? 0) >= 0x80 || (bytes[index + 1] ?? 0) >= 0x80) paired++;
  }
  return high > 0 && paired >= high / 2;
}

function decodeStrict(encoding: string, bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((byte, index) => bytes[index] === byte);
}
