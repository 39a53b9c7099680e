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
 * Vectors go back as hnswlib's cosine space stored them: normalised in float32 the way the binding
 * does (a float sum of squares, its square root, one division per component), so a restored
 * file is byte for byte the file hnswlib wrote.
 */
import { writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/** Bytes of hnswlib's file header (hnswalg.h saveIndex: 10 size_t, an int, a uint32, a double). */
const HEADER_BYTES = 96;
/** Elements read or written per step: ~7 MB of records at 384 dimensions. */
const ELEMENTS_PER_STEP = 4096;

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

async function readExactly(file: FileHandle, bytes: number, position: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(bytes);
  const { bytesRead } = await file.read(buffer, 0, bytes, position);
  if (bytesRead !== bytes) throw new Error('hnswlib file is truncated');
  return buffer;
}

/** Copies `from` (offset `start` to the end) to `to` at `at`. */
async function copyRest(from: FileHandle, start: number, to: FileHandle, at: number): Promise<void> {
  const buffer = Buffer.allocUnsafe(1 << 20);
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
  try {
    const header = await readExactly(full, HEADER_BYTES, 0);
    const layout = readLayout(header, dimensions);
    await links.write(header, 0, HEADER_BYTES, 0);
    let written = HEADER_BYTES;
    for (let first = 0; first < layout.count; first += ELEMENTS_PER_STEP) {
      const elements = Math.min(ELEMENTS_PER_STEP, layout.count - first);
      const records = await readExactly(full, elements * layout.recordBytes, HEADER_BYTES + first * layout.recordBytes);
      const out = Buffer.allocUnsafe(records.length);
      let used = 0;
      for (let i = 0; i < elements; i++) {
        const record = i * layout.recordBytes;
        if (!isDeleted(records, record)) {
          used += copyBytes(records, record, record + layout.dataOffset, out, used);
          used += copyBytes(records, record + layout.labelOffset, record + layout.recordBytes, out, used);
        } else {
          used += copyBytes(records, record, record + layout.recordBytes, out, used);
        }
      }
      await links.write(out, 0, used, written);
      written += used;
    }
    await copyRest(full, HEADER_BYTES + layout.count * layout.recordBytes, links, written);
  } finally {
    await Promise.allSettled([full.close(), links.close()]);
  }
}

/**
 * Writes hnswlib's full file at `fullPath` from the links file and the live elements' vectors,
 * `entries` (every live element exactly once, in any order; `labelOf` maps its id to its label).
 * Throws when an entry has no live element or an element gets no vector: the pair does not match.
 */
export async function restoreFullFile(
  linksPath: string,
  fullPath: string,
  dimensions: number,
  labelOf: (id: string) => number | undefined,
  entries: AsyncIterable<readonly { id: string; vector: Float32Array }[]>,
): Promise<void> {
  const slots = await expandLinksFile(linksPath, fullPath, dimensions);
  const full = await open(fullPath, 'r+');
  const stored = new Float32Array(dimensions);
  const bytes = new Uint8Array(stored.buffer);
  try {
    const filled = new Set<number>();
    for await (const batch of entries) {
      // Synchronous positioned writes into the page cache: a few microseconds each, where an
      // awaited write per vector costs a thread-pool round trip (seconds at 100k vectors).
      for (const entry of batch) {
        const label = labelOf(entry.id);
        if (label === undefined || entry.vector.length !== dimensions || filled.has(label)) {
          throw new Error(`entry ${JSON.stringify(entry.id)} does not match the index file`);
        }
        normaliseInto(entry.vector, stored);
        writeSync(full.fd, bytes, 0, bytes.length, slots.offsetOf(label));
        filled.add(label);
      }
    }
    if (filled.size !== slots.live) throw new Error(`the source gave ${filled.size} vectors for ${slots.live} live elements`);
  } finally {
    await full.close();
  }
}

/** Where each live element's vector goes in the expanded file, by label. */
interface VectorSlots {
  /** Byte offset of the vector of `label`; throws for a label that is not a live element. */
  offsetOf(label: number): number;
  readonly live: number;
}

/** The full file with the live elements' vector bytes left zero, and where they go. */
async function expandLinksFile(linksPath: string, fullPath: string, dimensions: number): Promise<VectorSlots> {
  const links = await open(linksPath, 'r');
  const full = await open(fullPath, 'w');
  const slots = new Map<number, number>();
  try {
    const header = await readExactly(links, HEADER_BYTES, 0);
    const layout = readLayout(header, dimensions);
    await full.write(header, 0, HEADER_BYTES, 0);
    let read = HEADER_BYTES;
    const short = layout.recordBytes - layout.dataBytes;
    for (let first = 0; first < layout.count; first += ELEMENTS_PER_STEP) {
      const elements = Math.min(ELEMENTS_PER_STEP, layout.count - first);
      // At most this many bytes hold the next `elements` records (all of them deleted, full-size).
      const input = Buffer.allocUnsafe(elements * layout.recordBytes);
      const got = (await links.read(input, 0, input.length, read)).bytesRead;
      const out = Buffer.alloc(elements * layout.recordBytes);
      let at = 0;
      for (let i = 0; i < elements; i++) {
        const record = i * layout.recordBytes;
        if (at + short > got) throw new Error('hnswlib links file is truncated');
        if (!isDeleted(input, at)) {
          copyBytes(input, at, at + layout.dataOffset, out, record);
          copyBytes(input, at + layout.dataOffset, at + short, out, record + layout.labelOffset);
          const label = Number(input.readBigUInt64LE(at + layout.dataOffset));
          if (slots.has(label)) throw new Error(`label ${label} appears twice in the index file`);
          slots.set(label, HEADER_BYTES + (first + i) * layout.recordBytes + layout.dataOffset);
          at += short;
        } else {
          if (at + layout.recordBytes > got) throw new Error('hnswlib links file is truncated');
          copyBytes(input, at, at + layout.recordBytes, out, record);
          at += layout.recordBytes;
        }
      }
      await full.write(out, 0, out.length, HEADER_BYTES + first * layout.recordBytes);
      read += at;
    }
    await copyRest(links, read, full, HEADER_BYTES + layout.count * layout.recordBytes);
  } finally {
    await Promise.allSettled([links.close(), full.close()]);
  }
  return {
    live: slots.size,
    offsetOf(label) {
      const offset = slots.get(label);
      if (offset === undefined) throw new Error(`label ${label} is not a live element of the index file`);
      return offset;
    },
  };
}

/** Writes into `out` what hnswlib's cosine space stores for `vector` (see the file comment). */
function normaliseInto(vector: Float32Array, out: Float32Array): void {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) {
    const value = vector[i] as number;
    sum = Math.fround(sum + Math.fround(value * value));
  }
  const norm = Math.fround(Math.sqrt(Math.abs(sum)));
  if (norm > 0) for (let i = 0; i < vector.length; i++) out[i] = (vector[i] as number) / norm;
  else out.set(vector);
}
