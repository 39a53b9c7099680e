/** One entry of a ZIP central directory, as declared (nothing is inflated here). */
export interface ZipEntry {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
  /** 0 stored, 8 deflate. */
  method: number;
  localHeaderOffset: number;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END = 0x06064b50;
const ZIP64_EXTRA = 0x0001;
// The EOCD record is 22 bytes followed by a comment of at most 65,535 bytes.
const MAX_EOCD_SEARCH = 22 + 0xffff;

export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

/**
 * Reads the central directory at the end of a ZIP file. Returns `undefined` when the structure is not
 * a readable ZIP (truncated, corrupt). Sizes are what the archive declares; a liar is caught later by
 * the parser's cap on bytes actually inflated.
 */
export function readZipDirectory(bytes: Uint8Array): ZipEntry[] | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = findEndOfCentralDirectory(view);
  if (eocd === undefined) return undefined;
  let count = view.getUint16(eocd + 10, true);
  let offset = view.getUint32(eocd + 16, true);
  const locator = eocd - 20;
  if (locator >= 0 && view.getUint32(locator, true) === ZIP64_LOCATOR) {
    const zip64End = Number(view.getBigUint64(locator + 8, true));
    if (zip64End + 56 > view.byteLength || view.getUint32(zip64End, true) !== ZIP64_END) return undefined;
    count = Number(view.getBigUint64(zip64End + 32, true));
    offset = Number(view.getBigUint64(zip64End + 48, true));
  }
  const entries: ZipEntry[] = [];
  const decoder = new TextDecoder();
  for (let index = 0; index < count; index++) {
    if (offset + 46 > view.byteLength || view.getUint32(offset, true) !== CENTRAL_FILE_HEADER) return undefined;
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const end = offset + 46 + nameLength + extraLength + commentLength;
    if (end > view.byteLength) return undefined;
    const entry: ZipEntry = {
      name: decoder.decode(bytes.subarray(offset + 46, offset + 46 + nameLength)),
      compressedSize: view.getUint32(offset + 20, true),
      uncompressedSize: view.getUint32(offset + 24, true),
      method: view.getUint16(offset + 10, true),
      localHeaderOffset: view.getUint32(offset + 42, true),
    };
    applyZip64Sizes(view, offset + 46 + nameLength, extraLength, entry);
    entries.push(entry);
    offset = end;
  }
  return entries;
}

function findEndOfCentralDirectory(view: DataView): number | undefined {
  const lowest = Math.max(0, view.byteLength - MAX_EOCD_SEARCH);
  for (let position = view.byteLength - 22; position >= lowest; position--) {
    if (view.getUint32(position, true) === END_OF_CENTRAL_DIRECTORY) return position;
  }
  return undefined;
}

/** The entry's stored bytes, or `undefined` when its local header is out of bounds. */
export function entryData(bytes: Uint8Array, entry: ZipEntry): Uint8Array | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const header = entry.localHeaderOffset;
  if (header + 30 > view.byteLength || view.getUint32(header, true) !== 0x04034b50) return undefined;
  const start = header + 30 + view.getUint16(header + 26, true) + view.getUint16(header + 28, true);
  const end = start + entry.compressedSize;
  return end > bytes.length ? undefined : bytes.subarray(start, end);
}

/** Sizes of 0xFFFFFFFF mean "see the ZIP64 extra field", in the order uncompressed, compressed. */
function applyZip64Sizes(view: DataView, start: number, length: number, entry: ZipEntry): void {
  if (entry.uncompressedSize !== 0xffffffff && entry.compressedSize !== 0xffffffff) return;
  let position = start;
  while (position + 4 <= start + length) {
    const id = view.getUint16(position, true);
    const size = view.getUint16(position + 2, true);
    if (id === ZIP64_EXTRA) {
      let field = position + 4;
      if (entry.uncompressedSize === 0xffffffff && field + 8 <= position + 4 + size) {
        entry.uncompressedSize = Number(view.getBigUint64(field, true));
        field += 8;
      }
      if (entry.compressedSize === 0xffffffff && field + 8 <= position + 4 + size) {
        entry.compressedSize = Number(view.getBigUint64(field, true));
      }
      return;
    }
    position += 4 + size;
  }
}
