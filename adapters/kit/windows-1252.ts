/**
 * Windows-1252 decoding. Node 20's `TextDecoder('windows-1252')` (and the labels WHATWG maps to it,
 * `iso-8859-1`, `latin1`, `ascii`) reads bytes 0x80-0x9F as C1 control characters, as ISO-8859-1
 * does, so the euro sign, curly quotes and dashes of Windows text were lost. These are the code
 * points Windows-1252 gives them (the five bytes it leaves undefined stay as the C1 controls).
 */
const HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

export function decodeWindows1252(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('latin1')
    .replace(/[\x80-\x9f]/g, (character) => HIGH[character.charCodeAt(0) - 0x80] as string);
}
