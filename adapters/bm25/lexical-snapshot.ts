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
 *
 * Format 7 adds the list over the 4-grams of the stems (adapters/bm25/stem-grams.ts): two more
 * header counts (4-grams, holders), and after format 6's data the 32-bit arrays of each
 * document's length in 4-grams, each 4-gram's document frequency, holder starts (4-grams + 1) and
 * holders, then the 4-grams as a packed list. Deriving that list from a format 6 snapshot reads
 * every posting once per 4-gram of its stem, so format 6 is still read (the list derived on load)
 * and rewritten as format 7 on close.
 */
import { fourByteAligned } from '../kit/byte-layout.js';
import { readPacked, type PackedStrings } from '../kit/packed-strings.js';
import type { LexicalIndexState } from './lexical-index.js';
import type { StemGramState } from './stem-grams.js';

/** The format written now; exported for the tests of older snapshots. */
export const SNAPSHOT_FORMAT = 7;
const FORMAT = SNAPSHOT_FORMAT;
/** Format 6: the words index alone, the 4-gram list derived on load. */
const WORDS_ONLY_FORMAT = 6;
/** u32 format, documents, terms, postings, large-tf ints; format 7 adds 4-grams and holders. */
const WORDS_HEADER_BYTES = 20;
const HEADER_BYTES = 28;

export function encodeSnapshot(state: LexicalIndexState): Buffer {
  const grams = state.stemGrams;
  if (grams === undefined) throw new Error('lexical state: no 4-gram list to save');
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
  const gramArrays = [grams.lengths, grams.df, grams.holderStarts, grams.holders];
  const byteSum = (sum: number, array: { byteLength: number }) => sum + array.byteLength;
  const size =
    HEADER_BYTES +
    arrays.reduce(byteSum, 0) +
    lists.reduce((sum, list) => sum + list.serializedLength, 0) +
    gramArrays.reduce(byteSum, 0) +
    grams.grams.serializedLength;
  const bytes = Buffer.alloc(size);
  const header = [
    FORMAT,
    state.ids.length,
    state.words.length,
    state.postings.length,
    state.largeTfs.length,
    grams.grams.length,
    grams.holders.length,
  ];
  header.forEach((value, i) => bytes.writeUInt32LE(value, i * 4));
  let at = HEADER_BYTES;
  const write = (array: Int32Array | Uint32Array) => {
    bytes.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), at);
    at += array.byteLength;
  };
  arrays.forEach(write);
  for (const list of lists) at = list.serializeInto(bytes, at);
  gramArrays.forEach(write);
  at = grams.grams.serializeInto(bytes, at);
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
    return format === FORMAT || format === WORDS_ONLY_FORMAT ? decodeFormat(fourByteAligned(bytes), format) : null;
  } catch {
    return null;
  }
}

function decodeFormat(bytes: Uint8Array, format: number): LexicalIndexState | null {
  const headerBytes = format === WORDS_ONLY_FORMAT ? WORDS_HEADER_BYTES : HEADER_BYTES;
  if (bytes.byteLength < headerBytes) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, headerBytes);
  const [documents, terms, postingCount, largeTfInts, gramCount, holderCount] = [4, 8, 12, 16, 20, 24].map((at) =>
    at < headerBytes ? view.getUint32(at, true) : 0,
  ) as [number, number, number, number, number, number];
  let at = headerBytes;
  const readArrays = (sizes: number[]): Int32Array[] | null => {
    if (at + sizes.reduce((sum, size) => sum + size * 4, 0) > bytes.byteLength) return null;
    return sizes.map((size) => {
      const array = new Int32Array(bytes.buffer, bytes.byteOffset + at, size);
      at += size * 4;
      return array;
    });
  };
  const arrays = readArrays([documents, documents, documents, terms + 1, terms, terms, postingCount, largeTfInts]);
  if (arrays === null) return null;
  const lists: PackedStrings[] = [];
  for (let i = 0; i < 4; i++) {
    const { strings, next } = readPacked(bytes, at);
    lists.push(strings);
    at = next;
  }
  let stemGrams: StemGramState | undefined;
  if (format !== WORDS_ONLY_FORMAT) {
    const gramArrays = readArrays([documents, gramCount, gramCount + 1, holderCount]);
    if (gramArrays === null) return null;
    const { strings, next } = readPacked(bytes, at);
    at = next;
    const [lengths, df, holderStarts, holders] = gramArrays as [Int32Array, Int32Array, Int32Array, Int32Array];
    if (strings.length !== gramCount) return null;
    stemGrams = { grams: strings, df, holderStarts, holders, lengths };
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
    ...(stemGrams === undefined ? {} : { stemGrams }),
  };
}
