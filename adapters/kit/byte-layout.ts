/**
 * Four-byte alignment for the binary files adapters read back as 32-bit arrays (the bm25 snapshot,
 * the HNSW collection header, packed string lists): an `Int32Array` view must start at a multiple
 * of 4 of its memory.
 */

/** `length` rounded up to a multiple of 4 (zero padding in the files). */
export function align4(length: number): number {
  return Math.ceil(length / 4) * 4;
}

/**
 * `bytes`, or a copy of its own memory (offset 0) when it does not start at a multiple of 4, so
 * that any 4-aligned position in it can be viewed as 32-bit values. A file read into a buffer of
 * its own, or a driver's blob, is already aligned: no copy.
 */
export function fourByteAligned(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset % 4 === 0 ? bytes : Uint8Array.from(bytes);
}
