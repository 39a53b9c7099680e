/**
 * Byte encoding of a lexical index ({@link LexicalIndexState}), stored in the `lexical_snapshots`
 * table so that opening a store does not re-tokenize every chunk (25 s for 100k abstract-sized
 * chunks on the 2-core benchmark machine; a snapshot of the same index loads in well under a second).
 *
 * Layout (formats 5 and 6), little-endian: u32 format, then the u32 counts of documents, terms, postings
 * and large-tf ints; then 32-bit arrays: lengths, sources, tenants (one per document), term starts
 * (terms + 1), each term's largest tf and shortest document (terms each), the postings (one uint32
 * each, as the index holds them), the (term, slot, tf) triples of the large tfs; then four packed
 * string lists (adapters/kit/packed-strings.ts): ids, datasource ids, custom ids, words, the terms
 * numbered in the order of their words. Everything is a view on the bytes as read, not a copy:
 * no string is built until a result or a write needs it, and the bounds are stored so loading never
 * walks the postings (docs/decisions/012-packed-string-lists.md).
 *
 * Format 6 has the layout of format 5; it says that the words were cut by the current rules (runs
 * of unspaced scripts in characters and pairs: adapters/bm25/lexical-terms.ts). A snapshot of
 * any earlier format holds the words of the former rules, so it is not read: the index is built
 * again from the rows (as for a stale snapshot) and saved in this format on close.
 */
import { fourByteAligned } from '../kit/byte-layout.js';
import { readPacked, type PackedStrings } from '../kit/packed-strings.js';
import type { LexicalIndexState } from './lexical-index.js';

/** The format written now; exported for the tests of older snapshots. */
export const SNAPSHOT_FORMAT = 6;
const FORMAT = SNAPSHOT_FORMAT;
/** u32 format, documents, terms, postings, large-tf ints. */
const HEADER_BYTES = 20;

export function encodeSnapshot(state: LexicalIndexState): Buffer {
  const arrays = [
    state.lengths,
    state.sources,
    state.tenants,
    state.termStarts,
    state.maxTf,
    state.minLength,
    state.postings,
    state.largeTfs,
  ];
  const lists = [state.ids, state.sourceIds, state.tenantIds, state.words];
  const size =
    HEADER_BYTES + arrays.reduce((sum, array) => sum + array.byteLength, 0) + lists.reduce((sum, list) => sum + list.serializedLength, 0);
  const bytes = Buffer.alloc(size);
  [FORMAT, state.ids.length, state.words.length, state.postings.length, state.largeTfs.length].forEach((value, i) =>
    bytes.writeUInt32LE(value, i * 4),
  );
  let at = HEADER_BYTES;
  for (const array of arrays) {
    bytes.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), at);
    at += array.byteLength;
  }
  for (const list of lists) at = list.serializeInto(bytes, at);
  return bytes;
}

/** Whether `bytes` are in the format `encodeSnapshot` writes now (an older one is rewritten on close). */
export function isCurrentFormat(bytes: Uint8Array): boolean {
  return bytes.byteLength >= 4 && new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true) === FORMAT;
}

/** The state in `bytes`, or null when they are not a snapshot of a known format (then: rebuild). */
export function decodeSnapshot(bytes: Uint8Array): LexicalIndexState | null {
  try {
    if (bytes.byteLength < 8) return null;
    const format = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
    return format === FORMAT ? decodeCurrent(fourByteAligned(bytes)) : null;
  } catch {
    return null;
  }
}

function decodeCurrent(bytes: Uint8Array): LexicalIndexState | null {
  if (bytes.byteLength < HEADER_BYTES) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
  const [documents, terms, postingCount, largeTfInts] = [4, 8, 12, 16].map((at) => view.getUint32(at, true)) as [
    number,
    number,
    number,
    number,
  ];
  const sizes = [documents, documents, documents, terms + 1, terms, terms, postingCount, largeTfInts];
  let at = HEADER_BYTES;
  if (at + sizes.reduce((sum, size) => sum + size * 4, 0) > bytes.byteLength) return null;
  const arrays = sizes.map((size) => {
    const array = new Int32Array(bytes.buffer, bytes.byteOffset + at, size);
    at += size * 4;
    return array;
  });
  const lists: PackedStrings[] = [];
  for (let i = 0; i < 4; i++) {
    const { strings, next } = readPacked(bytes, at);
    lists.push(strings);
    at = next;
  }
  if (at !== bytes.byteLength) return null;
  const [lengths, sources, tenants, termStarts, maxTf, minLength, postings, largeTfs] = arrays as [
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
  ];
  const [ids, sourceIds, tenantIds, words] = lists as [PackedStrings, PackedStrings, PackedStrings, PackedStrings];
  if (ids.length !== documents || words.length !== terms || termStarts[terms] !== postingCount) return null;
  return {
    ids,
    lengths,
    sources,
    tenants,
    sourceIds,
    tenantIds,
    words,
    termStarts,
    postings: new Uint32Array(postings.buffer, postings.byteOffset, postings.length),
    largeTfs,
    maxTf,
    minLength,
  };
}
