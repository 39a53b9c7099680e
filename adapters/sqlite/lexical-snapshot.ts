/**
 * Byte encoding of a lexical index ({@link LexicalIndexState}), stored in the `lexical_snapshots`
 * table so that opening a store does not re-tokenize every chunk (25 s for 100k abstract-sized
 * chunks on the 2-core benchmark machine; a snapshot of the same index loads in well under a second).
 *
 * Layout (format 5), little-endian: u32 format, then the u32 counts of documents, terms, postings
 * and large-tf ints; then 32-bit arrays: lengths, sources, tenants (one per document), term starts
 * (terms + 1), each term's largest tf and shortest document (terms each), the postings (one uint32
 * each, as the index holds them), the (term, slot, tf) triples of the large tfs; then four packed
 * string lists (adapters/kit/packed-strings.ts): ids, datasource ids, custom ids, words, the terms
 * numbered in the order of their words. Everything is a view on the bytes as read, not a copy:
 * no string is built until a result or a write needs it, and the bounds are stored so loading never
 * walks the postings (see docs/design-notes.md).
 *
 * Older formats are still read, and rewritten in this one on close. They kept the strings in a
 * JSON header after the format (parsing 100k ids, 100k datasource ids and 120k words was most of
 * loading a snapshot at 100k chunks): 4 with a term order array, 3 without, 2 stored each posting
 * as a (slot, tf) pair of ints, 1 also lacked the bounds (computed once).
 */
import { align4, fourByteAligned } from '../kit/byte-layout.js';
import { PackedStrings, readPacked } from '../kit/packed-strings.js';
import { LARGE_TF, posting, type LexicalIndexState } from './lexical-index.js';

const FORMAT = 5;
const ORDERED_JSON_FORMAT = 4;
const UNORDERED_FORMAT = 3;
const PAIR_FORMAT = 2;
const FIRST_FORMAT = 1;
/** u32 format, documents, terms, postings, large-tf ints. */
const HEADER_BYTES = 20;

/** The JSON header of formats 1-4. */
interface JsonHeader {
  ids: string[];
  sourceIds: string[];
  tenantIds: string[];
  words: string[];
  /** Postings (formats 3 and 4), or ints of (slot, tf) pairs (formats 1 and 2). */
  postingInts: number;
  /** Ints of the large-tf triples (formats 3 and 4). */
  largeTfInts?: number;
  /** Ints of the term order (format 4): the number of words, or 0 for none. */
  termOrderInts?: number;
}

/** What a snapshot of an older format stores instead of packed postings. */
type PairState = Omit<LexicalIndexState, 'postings' | 'largeTfs' | 'words'> & { pairs: Int32Array; words: string[] };

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
    if (format === FORMAT) return decodeCurrent(fourByteAligned(bytes));
    if (format === ORDERED_JSON_FORMAT || format === UNORDERED_FORMAT || format === PAIR_FORMAT || format === FIRST_FORMAT)
      return decodeJsonFormat(bytes, format);
    return null;
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

/** A snapshot of formats 1-4: strings in a JSON header, then the arrays. */
function decodeJsonFormat(bytes: Uint8Array, format: number): LexicalIndexState | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const packedPostings = format === ORDERED_JSON_FORMAT || format === UNORDERED_FORMAT;
  const jsonLength = view.getUint32(4, true);
  const header = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + 8, jsonLength).toString('utf8')) as JsonHeader;
  const count = header.ids.length;
  const words = header.words.length;
  const bounds = format === FIRST_FORMAT ? [] : [words, words];
  const largeTfs = packedPostings ? [header.largeTfInts ?? -1] : [];
  // Format 4's term order is not kept: the terms are renumbered in word order when it is rewritten.
  const termOrder = format === ORDERED_JSON_FORMAT ? [header.termOrderInts ?? -1] : [];
  const sizes = [count, count, count, words + 1, ...bounds, header.postingInts, ...largeTfs, ...termOrder];
  const start = align4(8 + jsonLength);
  if (sizes.some((size) => !Number.isSafeInteger(size) || size < 0)) return null;
  if (bytes.byteLength !== start + sizes.reduce((sum, size) => sum + size * 4, 0)) return null;
  // The arrays start at `start`, a multiple of 4 counted from the bytes' own start.
  const aligned = fourByteAligned(bytes);
  let at = aligned.byteOffset + start;
  const arrays = sizes.map((size) => {
    const array = new Int32Array(aligned.buffer, at, size);
    at += size * 4;
    return array;
  });
  const [lengths, sources, tenants, termStarts] = arrays as [Int32Array, Int32Array, Int32Array, Int32Array];
  const base = {
    ids: PackedStrings.of(header.ids),
    lengths,
    sources,
    tenants,
    sourceIds: PackedStrings.of(header.sourceIds),
    tenantIds: PackedStrings.of(header.tenantIds),
    words: header.words,
    termStarts,
  };
  if (packedPostings) {
    const postings = arrays[6] as Int32Array;
    if (termStarts[words] !== postings.length) return null;
    return {
      ...base,
      words: PackedStrings.of(base.words),
      maxTf: arrays[4] as Int32Array,
      minLength: arrays[5] as Int32Array,
      postings: new Uint32Array(postings.buffer, postings.byteOffset, postings.length),
      largeTfs: arrays[7] as Int32Array,
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
  return { ...rest, words: PackedStrings.of(words), termStarts, postings, largeTfs: Int32Array.from(largeTfs) };
}

/** MaxScore's bounds of each term of a state that does not carry them (a snapshot of the first format). */
function termBounds(
  state: Pick<PairState, 'words' | 'termStarts' | 'lengths'>,
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
