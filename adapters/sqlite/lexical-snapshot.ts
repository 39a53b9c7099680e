/**
 * Byte encoding of a lexical index ({@link LexicalIndexState}), stored in the `lexical_snapshots`
 * table so that opening a store does not re-tokenize every chunk (25 s for 100k abstract-sized
 * chunks on the 2-core benchmark machine; a snapshot of the same index loads in well under a second).
 *
 * Layout: u32 format, u32 byte length of a UTF-8 JSON header (ids, interned datasource and custom
 * ids, words, counts), zero padding to a multiple of 4, then little-endian int32 arrays: lengths,
 * sources, tenants (one per document), term starts (words + 1), postings (pairs).
 */
import type { LexicalIndexState } from './lexical-index.js';

const FORMAT = 1;

interface Header {
  ids: string[];
  sourceIds: string[];
  tenantIds: string[];
  words: string[];
  postingInts: number;
}

export function encodeSnapshot(state: LexicalIndexState): Buffer {
  const header: Header = {
    ids: state.ids,
    sourceIds: state.sourceIds,
    tenantIds: state.tenantIds,
    words: state.words,
    postingInts: state.postings.length,
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const start = align(8 + json.length);
  const arrays = [state.lengths, state.sources, state.tenants, state.termStarts, state.postings];
  const bytes = Buffer.alloc(start + arrays.reduce((sum, array) => sum + array.byteLength, 0));
  bytes.writeUInt32LE(FORMAT, 0);
  bytes.writeUInt32LE(json.length, 4);
  json.copy(bytes, 8);
  let at = start;
  for (const array of arrays) {
    bytes.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), at);
    at += array.byteLength;
  }
  return bytes;
}

/** The state in `bytes`, or null when they are not a snapshot of this format (then: rebuild). */
export function decodeSnapshot(bytes: Uint8Array): LexicalIndexState | null {
  try {
    if (bytes.byteLength < 8) return null;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (view.getUint32(0, true) !== FORMAT) return null;
    const jsonLength = view.getUint32(4, true);
    const header = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + 8, jsonLength).toString('utf8')) as Header;
    const count = header.ids.length;
    const sizes = [count, count, count, header.words.length + 1, header.postingInts];
    const start = align(8 + jsonLength);
    if (bytes.byteLength !== start + sizes.reduce((sum, size) => sum + size * 4, 0)) return null;
    // Int32Array views need 4-byte alignment; a driver buffer at an odd offset is copied once.
    const aligned = (bytes.byteOffset + start) % 4 === 0 ? bytes : Uint8Array.from(bytes);
    let at = aligned.byteOffset + start;
    const [lengths, sources, tenants, termStarts, postings] = sizes.map((size) => {
      const array = new Int32Array(aligned.buffer, at, size);
      at += size * 4;
      return array;
    }) as [Int32Array, Int32Array, Int32Array, Int32Array, Int32Array];
    if (termStarts[header.words.length] !== postings.length / 2) return null;
    return {
      ids: header.ids,
      lengths,
      sources,
      tenants,
      sourceIds: header.sourceIds,
      tenantIds: header.tenantIds,
      words: header.words,
      termStarts,
      postings,
    };
  } catch {
    return null;
  }
}

function align(offset: number): number {
  return Math.ceil(offset / 4) * 4;
}
