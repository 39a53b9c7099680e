/**
 * Byte encoding of a lexical index ({@link LexicalIndexState}), stored in the `lexical_snapshots`
 * table so that opening a store does not re-tokenize every chunk (25 s for 100k abstract-sized
 * chunks on the 2-core benchmark machine; a snapshot of the same index loads in well under a second).
 *
 * Layout: u32 format, u32 byte length of a UTF-8 JSON header (ids, interned datasource and custom
 * ids, words, counts), zero padding to a multiple of 4, then little-endian 32-bit arrays: lengths,
 * sources, tenants (one per document), term starts (words + 1), each term's largest tf and
 * shortest document (words each), the postings (one uint32 each, as the index holds them), then
 * the (term, slot, tf) triples of the large tfs. The arrays are views on the bytes as read, not
 * copies, and the bounds are stored so loading never walks the postings (at 100k chunks, building
 * the index from a snapshot went from 0.33-0.46 s to 0.10-0.21 s of CPU; see docs/design-notes.md).
 *
 * Last comes the term order (term numbers sorted by word, see LexicalIndexState.termOrder), so a
 * loaded index looks a query's terms up without first building a map of every word.
 *
 * Older formats are still read, and rewritten in this one on close: 3 lacked the term order, 2
 * stored each posting as a (slot, tf) pair of ints, 1 also lacked the bounds (computed once).
 */
import { LARGE_TF, posting, type LexicalIndexState } from './lexical-index.js';

const FORMAT = 4;
const UNORDERED_FORMAT = 3;
const PAIR_FORMAT = 2;
const FIRST_FORMAT = 1;

interface Header {
  ids: string[];
  sourceIds: string[];
  tenantIds: string[];
  words: string[];
  /** Postings (format 3), or ints of (slot, tf) pairs (formats 1 and 2). */
  postingInts: number;
  /** Ints of the large-tf triples (formats 3 and 4). */
  largeTfInts?: number;
  /** Ints of the term order (format 4): the number of words, or 0 for none. */
  termOrderInts?: number;
}

/** What a snapshot of an older format stores instead of packed postings. */
type PairState = Omit<LexicalIndexState, 'postings' | 'largeTfs'> & { pairs: Int32Array };

export function encodeSnapshot(state: LexicalIndexState): Buffer {
  const header: Header = {
    ids: state.ids,
    sourceIds: state.sourceIds,
    tenantIds: state.tenantIds,
    words: state.words,
    postingInts: state.postings.length,
    largeTfInts: state.largeTfs.length,
  };
  if (state.termOrder !== undefined && state.termOrder.length !== state.words.length) throw new Error('lexical state: term order length');
  const json = Buffer.from(JSON.stringify({ ...header, termOrderInts: state.termOrder?.length ?? 0 }), 'utf8');
  const start = align(8 + json.length);
  const arrays = [
    state.lengths,
    state.sources,
    state.tenants,
    state.termStarts,
    state.maxTf,
    state.minLength,
    state.postings,
    state.largeTfs,
    state.termOrder ?? new Int32Array(0),
  ];
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
    if (format !== FORMAT && format !== UNORDERED_FORMAT && format !== PAIR_FORMAT && format !== FIRST_FORMAT) return null;
    const packedPostings = format === FORMAT || format === UNORDERED_FORMAT;
    const jsonLength = view.getUint32(4, true);
    const header = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + 8, jsonLength).toString('utf8')) as Header;
    const count = header.ids.length;
    const words = header.words.length;
    const bounds = format === FIRST_FORMAT ? [] : [words, words];
    const largeTfs = packedPostings ? [header.largeTfInts ?? -1] : [];
    const termOrder = format === FORMAT ? [header.termOrderInts ?? -1] : [];
    const sizes = [count, count, count, words + 1, ...bounds, header.postingInts, ...largeTfs, ...termOrder];
    const start = align(8 + jsonLength);
    if (sizes.some((size) => !Number.isSafeInteger(size) || size < 0)) return null;
    if (bytes.byteLength !== start + sizes.reduce((sum, size) => sum + size * 4, 0)) return null;
    // 32-bit views need 4-byte alignment; a driver buffer at an odd offset is copied once.
    const aligned = (bytes.byteOffset + start) % 4 === 0 ? bytes : Uint8Array.from(bytes);
    let at = aligned.byteOffset + start;
    const arrays = sizes.map((size) => {
      const array = new Int32Array(aligned.buffer, at, size);
      at += size * 4;
      return array;
    });
    const [lengths, sources, tenants, termStarts] = arrays as [Int32Array, Int32Array, Int32Array, Int32Array];
    const base = {
      ids: header.ids,
      lengths,
      sources,
      tenants,
      sourceIds: header.sourceIds,
      tenantIds: header.tenantIds,
      words: header.words,
      termStarts,
    };
    if (packedPostings) {
      const postings = arrays[6] as Int32Array;
      if (termStarts[words] !== postings.length) return null;
      const order = arrays[8];
      if (order !== undefined && order.length !== 0 && order.length !== words) return null;
      return {
        ...base,
        maxTf: arrays[4] as Int32Array,
        minLength: arrays[5] as Int32Array,
        postings: new Uint32Array(postings.buffer, postings.byteOffset, postings.length),
        largeTfs: arrays[7] as Int32Array,
        ...(order !== undefined && order.length === words ? { termOrder: order } : {}),
      };
    }
    const pairs = arrays[bounds.length === 0 ? 4 : 6] as Int32Array;
    if (termStarts[words] !== pairs.length / 2) return null;
    const state: PairState = {
      ...base,
      pairs,
      ...(format === PAIR_FORMAT ? { maxTf: arrays[4] as Int32Array, minLength: arrays[5] as Int32Array } : termBounds(base, pairs)),
    };
    return packed(state);
  } catch {
    return null;
  }
}

/** An older snapshot's (slot, tf) pairs as the packed postings the index holds. */
function packed(state: PairState): LexicalIndexState {
  const { pairs, termStarts, words, ...rest } = state;
  const postings = new Uint32Array(pairs.length / 2);
  const largeTfs: number[] = [];
  for (let term = 0; term < words.length; term++) {
    for (let i = termStarts[term] as number; i < (termStarts[term + 1] as number); i++) {
      const slot = pairs[i * 2] as number;
      const tf = pairs[i * 2 + 1] as number;
      postings[i] = posting(slot, tf);
      if (tf >= LARGE_TF) largeTfs.push(term, slot, tf);
    }
  }
  return { ...rest, words, termStarts, postings, largeTfs: Int32Array.from(largeTfs) };
}

/** MaxScore's bounds of each term of a state that does not carry them (a snapshot of the first format). */
function termBounds(
  state: Pick<LexicalIndexState, 'words' | 'termStarts' | 'lengths'>,
  pairs: Int32Array,
): {
  maxTf: Int32Array;
  minLength: Int32Array;
} {
  const terms = state.words.length;
  const maxTf = new Int32Array(terms);
  const minLength = new Int32Array(terms).fill(0x7fff_ffff);
  const { lengths, termStarts } = state;
  for (let term = 0; term < terms; term++) {
    for (let p = (termStarts[term] as number) * 2; p < (termStarts[term + 1] as number) * 2; p += 2) {
      const tf = pairs[p + 1] as number;
      if (tf > (maxTf[term] as number)) maxTf[term] = tf;
      const length = lengths[pairs[p] as number] as number;
      if (length < (minLength[term] as number)) minLength[term] = length;
    }
  }
  return { maxTf, minLength };
}

function align(offset: number): number {
  return Math.ceil(offset / 4) * 4;
}
