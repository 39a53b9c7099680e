/**
 * hnswlib's index file without the vectors the store already keeps ("links" layout). The binding
 * reads it back into a graph (native/links-file.cc).
 *
 * hnswlib's file is a 96-byte header, then one fixed-size level-0 record per element (its level-0
 * links, its vector, its label), then each element's upper-level links. At 384 dimensions the
 * vector is 1,536 of a record's ~1,680 bytes, and every vector is also a row of the store (the
 * source of truth, which rebuilds the index). Writing the file with the live elements' vectors
 * cut out stores each vector once; loading puts them back from the store into the graph's memory.
 *
 * Deleted elements keep their vectors in the file: hnswlib still routes searches through them,
 * and the store no longer has them. Which records are cut is read from hnswlib's own delete mark
 * in each record, so the file describes itself; on load every live element must get exactly one
 * vector from the store, else the pair is rejected.
 *
 * Vectors go back as hnswlib's cosine space stored them, normalised in float32 as on insert, so a
 * restored graph writes byte for byte the file hnswlib wrote.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { releaseBuffer } from '../../kit/release-buffer.js';

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
