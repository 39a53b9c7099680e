/**
 * hnswlib's index file without the vectors the store already keeps ("links" layout), and back.
 *
 * hnswlib's file is a 96-byte header, then one fixed-size level-0 record per element (its level-0
 * links, its vector, its label), then each element's upper-level links. At 384 dimensions the
 * vector is 1,536 of a record's ~1,680 bytes, and every vector is also a row of the store (the
 * source of truth, which rebuilds the index). Writing the file with the live elements' vectors
 * cut out stores each vector once; loading puts them back from the store before hnswlib reads it.
 *
 * Deleted elements keep their vectors in the file: hnswlib still routes searches through them,
 * and the store no longer has them. Which records are cut is read from hnswlib's own delete mark
 * in each record, so the file describes itself; on load every live element must get exactly one
 * vector from the store, else the pair is rejected.
 *
 * Vectors go back as hnswlib's cosine space stored them, normalised in float32 the way the binding
 * does (cosine-image.ts), so a restored file is byte for byte the file hnswlib wrote.
 */
import { open, readFile, writeFile, type FileHandle } from 'node:fs/promises';
import { releaseBuffer } from '../kit/release-buffer.js';
import { cosineImage, type CosineImage } from './cosine-image.js';

/** Bytes of hnswlib's file header (hnswalg.h saveIndex: 10 size_t, an int, a uint32, a double). */
const HEADER_BYTES = 96;
/**
 * Bytes read or written per step when cutting the links file. The two step buffers are allocated
 * once per write and freed at its end: a new pair per step (7 MB each) waited for the collector,
 * and the graph thread's malloc arena kept the ~40 MB they reached after every flush at 100k.
 */
const STEP_BYTES = 1 << 20;

interface Layout {
  count: number;
  recordBytes: number;
  /** Start of the vector in a level-0 record, and its length. */
  dataOffset: number;
  dataBytes: number;
  labelOffset: number;
}

function readLayout(header: Buffer, dimensions: number): Layout {
  const field = (at: number) => Number(header.readBigUInt64LE(at));
  if (field(0) !== 0) throw new Error('unexpected hnswlib file layout');
  const layout = {
    count: field(16),
    recordBytes: field(24),
    labelOffset: field(32),
    dataOffset: field(40),
    dataBytes: dimensions * 4,
  };
  if (
    layout.dataOffset + layout.dataBytes !== layout.labelOffset ||
    layout.labelOffset + 8 !== layout.recordBytes ||
    !Number.isSafeInteger(layout.count)
  ) {
    throw new Error('unexpected hnswlib file layout');
  }
  return layout;
}

/** hnswlib's delete mark: bit 0 of the third byte of an element's level-0 link header. */
function isDeleted(records: Buffer, record: number): boolean {
  return ((records[record + 2] as number) & 1) !== 0;
}

/** `from[start, end)` into `to` at `at`; returns the length. A typed-array copy: Buffer#copy's JS wrapper cost more than the bytes here. */
function copyBytes(from: Buffer, start: number, end: number, to: Buffer, at: number): number {
  to.set(from.subarray(start, end), at);
  return end - start;
}

/** Reads `bytes` bytes at `position` into the start of `buffer`; returns that part of it. */
async function readExactly(file: FileHandle, bytes: number, position: number, buffer: Buffer): Promise<Buffer> {
  const { bytesRead } = await file.read(buffer, 0, bytes, position);
  if (bytesRead !== bytes) throw new Error('hnswlib file is truncated');
  return buffer.subarray(0, bytes);
}

/** Copies `from` (offset `start` to the end) to `to` at `at`, through `buffer`. */
async function copyRest(from: FileHandle, start: number, to: FileHandle, at: number, buffer: Buffer): Promise<void> {
  for (let position = start, written = at; ;) {
    const { bytesRead } = await from.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) return;
    await to.write(buffer, 0, bytesRead, written);
    position += bytesRead;
    written += bytesRead;
  }
}

/** Writes `linksPath` from hnswlib's file at `fullPath`, leaving out every live element's vector. */
export async function writeLinksFile(fullPath: string, linksPath: string, dimensions: number): Promise<void> {
  const full = await open(fullPath, 'r');
  const links = await open(linksPath, 'w');
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  let records: Buffer | undefined;
  let out: Buffer | undefined;
  try {
    const layout = readLayout(await readExactly(full, HEADER_BYTES, 0, header), dimensions);
    await links.write(header, 0, HEADER_BYTES, 0);
    const perStep = Math.max(1, Math.floor(STEP_BYTES / layout.recordBytes));
    records = Buffer.allocUnsafeSlow(perStep * layout.recordBytes);
    out = Buffer.allocUnsafeSlow(records.length);
    let written = HEADER_BYTES;
    for (let first = 0; first < layout.count; first += perStep) {
      const elements = Math.min(perStep, layout.count - first);
      const step = await readExactly(full, elements * layout.recordBytes, HEADER_BYTES + first * layout.recordBytes, records);
      let used = 0;
      for (let i = 0; i < elements; i++) {
        const record = i * layout.recordBytes;
        if (!isDeleted(step, record)) {
          used += copyBytes(step, record, record + layout.dataOffset, out, used);
          used += copyBytes(step, record + layout.labelOffset, record + layout.recordBytes, out, used);
        } else {
          used += copyBytes(step, record, record + layout.recordBytes, out, used);
        }
      }
      await links.write(out, 0, used, written);
      written += used;
    }
    await copyRest(full, HEADER_BYTES + layout.count * layout.recordBytes, links, written, records);
  } finally {
    await Promise.allSettled([full.close(), links.close()]);
    if (records) releaseBuffer(records);
    if (out) releaseBuffer(out);
  }
}

/**
 * hnswlib's full file assembled from the links file and the live elements' vectors, given by label
 * in any order, each exactly once; `write` throws when an element got no vector, `put` when a label
 * is not a live element or comes twice: the pair does not match.
 *
 * The file is assembled in memory and written in one go: the store yields vectors in its own
 * order, not the file's, and one positioned write per vector cost a third of reopening 20k chunks
 * (14 µs a write). The image is as large as the file hnswlib then loads, and it is garbage once
 * written, before hnswlib allocates its own copy.
 */
export class FullFileImage {
  private readonly filled: Uint8Array;
  private count = 0;
  private released = false;

  private constructor(
    private readonly image: Image,
    private readonly dimensions: number,
  ) {
    this.filled = new Uint8Array(image.live);
  }

  static async read(linksPath: string, dimensions: number): Promise<FullFileImage> {
    return new FullFileImage(expandLinks(await readFile(linksPath), dimensions), dimensions);
  }

  put(label: number, vector: Float32Array): void {
    const slot = this.image.slotOfLabel.get(label);
    if (slot === undefined) throw new Error(`label ${label} is not a live element of the index file`);
    if (vector.length !== this.dimensions || this.filled[slot] === 1) throw new Error(`label ${label} does not match the index file`);
    this.image.vectors.put(vector, this.image.offsets[slot] as number);
    this.filled[slot] = 1;
    this.count++;
  }

  async write(fullPath: string): Promise<void> {
    try {
      if (this.count !== this.image.live) throw new Error(`the source gave ${this.count} vectors for ${this.image.live} live elements`);
      await writeFile(fullPath, this.image.vectors.bytes);
    } finally {
      this.release();
    }
  }

  /** The image is the size of the index (168 MB at 100,000 chunks) and hnswlib reads its own copy. */
  release(): void {
    if (this.released) return;
    this.released = true;
    releaseBuffer(this.image.vectors.bytes);
  }
}

/** hnswlib's full file with the live elements' vector bytes still to fill, and where they go. */
interface Image {
  vectors: CosineImage;
  /** Live elements, numbered 0.. in file order: slot → byte offset of its vector. */
  offsets: Float64Array;
  slotOfLabel: Map<number, number>;
  readonly live: number;
}

/** Lays the links file out as the full file; every byte but the live vectors is written here. */
function expandLinks(file: Buffer, dimensions: number): Image {
  if (file.length < HEADER_BYTES) throw new Error('hnswlib links file is truncated');
  const layout = readLayout(file.subarray(0, HEADER_BYTES), dimensions);
  // hnswlib's fields are 4 and 8 bytes wide: records and vectors start at multiples of 4, so the
  // records are copied a word at a time (a typed-array copy per record cost more than the bytes).
  if (layout.dataOffset % 4 !== 0 || layout.recordBytes % 4 !== 0) throw new Error('unexpected hnswlib file layout');
  let links = file;
  if (file.byteOffset % 4 !== 0) {
    links = Buffer.allocUnsafeSlow(file.length);
    links.set(file);
  }
  const short = layout.recordBytes - layout.dataBytes;
  const sizeAt = (at: number) => (isDeleted(links, at) ? layout.recordBytes : short);
  // First where the level-0 records end (the upper levels' links follow them), to size the image.
  let end = HEADER_BYTES;
  for (let element = 0; element < layout.count; element++) {
    if (end + short > links.length) throw new Error('hnswlib links file is truncated');
    end += sizeAt(end);
  }
  if (end > links.length) throw new Error('hnswlib links file is truncated');
  const levelZeroEnd = HEADER_BYTES + layout.count * layout.recordBytes;
  const vectors = cosineImage(dimensions, levelZeroEnd + (links.length - end));
  const { bytes } = vectors;
  bytes.set(links.subarray(0, HEADER_BYTES), 0);
  bytes.set(links.subarray(end), levelZeroEnd);
  const from = new Int32Array(links.buffer, links.byteOffset, links.length >>> 2);
  const to = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2);
  const offsets = new Float64Array(layout.count);
  const slotOfLabel = new Map<number, number>();
  for (let element = 0, at = HEADER_BYTES; element < layout.count; element++) {
    const record = HEADER_BYTES + element * layout.recordBytes;
    if (!isDeleted(links, at)) {
      copyWords(from, at, layout.dataOffset, to, record);
      copyWords(from, at + layout.dataOffset, 8, to, record + layout.labelOffset);
      // Two words, not readBigUInt64LE: a BigInt per element showed in the profile.
      const label = links.readUInt32LE(at + layout.dataOffset) + links.readUInt32LE(at + layout.dataOffset + 4) * 2 ** 32;
      if (slotOfLabel.has(label)) throw new Error(`label ${label} appears twice in the index file`);
      offsets[slotOfLabel.size] = record + layout.dataOffset;
      slotOfLabel.set(label, slotOfLabel.size);
    } else {
      copyWords(from, at, layout.recordBytes, to, record);
    }
    at += sizeAt(at);
  }
  return { vectors, offsets, slotOfLabel, live: slotOfLabel.size };
}

/** Copies `bytes` bytes (a multiple of 4) from byte `start` of `from` to byte `at` of `to`. */
function copyWords(from: Int32Array, start: number, bytes: number, to: Int32Array, at: number): void {
  const source = start >>> 2;
  const target = at >>> 2;
  for (let i = 0; i < bytes >>> 2; i++) to[target + i] = from[source + i] as number;
}
