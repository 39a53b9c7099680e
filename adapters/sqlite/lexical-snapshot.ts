/**
 * Byte encoding of a lexical index ({@link LexicalIndexState}), stored in the `lexical_snapshots`
 * table so that opening a store does not re-tokenize every chunk (25 s for 100k abstract-sized
 * chunks on the 2-core benchmark machine; a snapshot of the same index loads in well under a second).
 *
 * Layout: u32 format, u32 byte length of a UTF-8 JSON header (ids, interned datasource and custom
 * ids, words, counts), zero padding to a multiple of 4, then little-endian int32 arrays: lengths,
 * sources, tenants (one per document), term starts (words + 1), then (format 2) each term's largest
 * tf and shortest document (words each), then the postings (pairs). The arrays are views on the
 * bytes as read, not copies, and format 2 carries the bounds so loading never walks the postings
 * (at 100k chunks, building the index from a snapshot went from 0.33-0.46 s to 0.10-0.21 s of
 * CPU; see docs/design-notes.md). Format 1 is still read: its bounds are computed once.
 */
import type { LexicalIndexState } from './lexical-index.js';

const FORMAT = 2;
const FIRST_FORMAT = 1;

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
  const arrays = [state.lengths, state.sources, state.tenants, state.termStarts, state.maxTf, state.minLength, state.postings];
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

/** Whether `bytes` are in the format `encodeSnapshot` writes now (an older one is rewritten on close). */
export function isCurrentFormat(bytes: Uint8Array): boolean {
  return bytes.byteLength >= 4 && new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true) === FORMAT;
}

/** The state in `bytes`, or null when they are not a snapshot of this format (then: rebuild). */
export function decodeSnapshot(bytes: Uint8Array): LexicalIndexState | null {
  try {
    if (bytes.byteLength < 8) return null;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const format = view.getUint32(0, true);
    if (format !== FORMAT && format !== FIRST_FORMAT) return null;
    const jsonLength = view.getUint32(4, true);
    const header = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + 8, jsonLength).toString('utf8')) as Header;
    const count = header.ids.length;
    const words = header.words.length;
    const bounds = format === FORMAT ? [words, words] : [];
    const sizes = [count, count, count, words + 1, ...bounds, header.postingInts];
    const start = align(8 + jsonLength);
    if (bytes.byteLength !== start + sizes.reduce((sum, size) => sum + size * 4, 0)) return null;
    // Int32Array views need 4-byte alignment; a driver buffer at an odd offset is copied once.
    const aligned = (bytes.byteOffset + start) % 4 === 0 ? bytes : Uint8Array.from(bytes);
    let at = aligned.byteOffset + start;
    const arrays = sizes.map((size) => {
      const array = new Int32Array(aligned.buffer, at, size);
      at += size * 4;
      return array;
    });
    const [lengths, sources, tenants, termStarts] = arrays as [Int32Array, Int32Array, Int32Array, Int32Array];
    const postings = arrays[arrays.length - 1] as Int32Array;
    if (termStarts[words] !== postings.length / 2) return null;
    const state = {
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
    if (format === FORMAT) return { ...state, maxTf: arrays[4] as Int32Array, minLength: arrays[5] as Int32Array };
    return { ...state, ...termBounds(state) };
  } catch {
    return null;
  }
}

/** MaxScore's bounds of each term of a state that does not carry them (a snapshot of the first format). */
function termBounds(state: Pick<LexicalIndexState, 'words' | 'termStarts' | 'postings' | 'lengths'>): {
  maxTf: Int32Array;
  minLength: Int32Array;
} {
  const terms = state.words.length;
  const maxTf = new Int32Array(terms);
  const minLength = new Int32Array(terms).fill(0x7fff_ffff);
  const { postings, lengths, termStarts } = state;
  for (let term = 0; term < terms; term++) {
    for (let p = (termStarts[term] as number) * 2; p < (termStarts[term + 1] as number) * 2; p += 2) {
      const tf = postings[p + 1] as number;
      if (tf > (maxTf[term] as number)) maxTf[term] = tf;
      const length = lengths[postings[p] as number] as number;
      if (length < (minLength[term] as number)) minLength[term] = length;
    }
  }
  return { maxTf, minLength };
}

function align(offset: number): number {
  return Math.ceil(offset / 4) * 4;
}
