/**
 * A list of strings kept as one block of UTF-8 bytes and the end offset of each: how the bm25
 * snapshot and the HNSW collection header store their ids and words. Reading a JSON array of 100k
 * ids builds 100k strings before the first query, and most are never read (a query returns ten);
 * here a string is decoded when it is asked for, and the whole list only when a write needs it.
 *
 * Serialized (`serialize` / `readPacked`): u32 count, u32 byte length, the count u32 end offsets,
 * the bytes, zero padding to a multiple of 4; little-endian. Strings compare by their bytes, which
 * is Unicode code point order (JavaScript's `<` compares UTF-16 units and differs from it for
 * characters beyond U+FFFF).
 */
import { align4 } from './byte-layout.js';

export class PackedStrings {
  private readonly text: Buffer;

  /**
   * Throws when the last offset is not the bytes' end. The offsets are not walked (100k of them on
   * the way to a reopen's first query): a string whose offsets are out of order or range reads as
   * the part of `bytes` they do cover, never beyond.
   */
  constructor(
    readonly bytes: Uint8Array,
    readonly ends: Uint32Array,
  ) {
    if ((ends.length === 0 ? 0 : ends[ends.length - 1]) !== bytes.byteLength) {
      throw new Error('packed strings: offsets do not end at the bytes’ end');
    }
    this.text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  static of(strings: readonly string[]): PackedStrings {
    const ends = new Uint32Array(strings.length);
    let total = 0;
    strings.forEach((string, i) => {
      total += Buffer.byteLength(string, 'utf8');
      ends[i] = total;
    });
    const bytes = Buffer.allocUnsafeSlow(total);
    let at = 0;
    for (const string of strings) at += bytes.write(string, at, 'utf8');
    return new PackedStrings(bytes, ends);
  }

  get length(): number {
    return this.ends.length;
  }

  at(index: number): string {
    return this.text.toString('utf8', this.start(index), this.ends[index]);
  }

  /** Every string, decoded. */
  toArray(): string[] {
    const strings = new Array<string>(this.length);
    for (let i = 0; i < strings.length; i++) strings[i] = this.at(i);
    return strings;
  }

  /** Negative, 0 or positive as string `index` orders before, equal to or after `key` (UTF-8 bytes). */
  compareTo(index: number, key: Uint8Array): number {
    return compareBytes(this.bytes, this.start(index), this.ends[index] as number, key, 0, key.length);
  }

  /**
   * The position of `value` in a list whose strings ascend in byte order (see
   * `isStrictlyAscending`), by binary search; undefined when it is not in the list.
   */
  indexOfSorted(value: string): number | undefined {
    const key = Buffer.from(value, 'utf8');
    let low = 0;
    let high = this.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const order = this.compareTo(middle, key);
      if (order === 0) return middle;
      if (order < 0) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  }

  /** The same order between two of the strings. */
  compare(a: number, b: number): number {
    return compareBytes(this.bytes, this.start(a), this.ends[a] as number, this.bytes, this.start(b), this.ends[b] as number);
  }

  /** Whether every string orders strictly after the one before it. */
  isStrictlyAscending(): boolean {
    for (let i = 1; i < this.length; i++) if (this.compare(i - 1, i) >= 0) return false;
    return true;
  }

  /** Bytes of the serialized list (see the module comment). */
  get serializedLength(): number {
    return 8 + this.ends.byteLength + align4(this.bytes.byteLength);
  }

  /** The list serialized into `target` at `offset` (a multiple of 4); returns the offset after it. */
  serializeInto(target: Uint8Array, offset: number): number {
    const view = new DataView(target.buffer, target.byteOffset + offset, 8);
    view.setUint32(0, this.length, true);
    view.setUint32(4, this.bytes.byteLength, true);
    let at = offset + 8;
    target.set(new Uint8Array(this.ends.buffer, this.ends.byteOffset, this.ends.byteLength), at);
    at += this.ends.byteLength;
    target.set(this.bytes, at);
    target.fill(0, at + this.bytes.byteLength, at + align4(this.bytes.byteLength));
    return at + align4(this.bytes.byteLength);
  }

  serialize(): Uint8Array {
    const bytes = new Uint8Array(this.serializedLength);
    this.serializeInto(bytes, 0);
    return bytes;
  }

  private start(index: number): number {
    return index === 0 ? 0 : (this.ends[index - 1] as number);
  }
}

/**
 * The list serialized at `offset` of `source` (views on its memory, not copies) and the offset
 * after it; throws when the bytes run out or do not hold a list. `source.byteOffset + offset` must
 * be a multiple of 4 (the offsets are read as a 32-bit array).
 */
export function readPacked(source: Uint8Array, offset: number): { strings: PackedStrings; next: number } {
  if (offset + 8 > source.byteLength) throw new Error('packed strings: cut short');
  const view = new DataView(source.buffer, source.byteOffset + offset, 8);
  const count = view.getUint32(0, true);
  const byteLength = view.getUint32(4, true);
  const next = offset + 8 + count * 4 + align4(byteLength);
  if (next > source.byteLength) throw new Error('packed strings: cut short');
  const ends = new Uint32Array(source.buffer, source.byteOffset + offset + 8, count);
  const bytes = new Uint8Array(source.buffer, source.byteOffset + offset + 8 + count * 4, byteLength);
  return { strings: new PackedStrings(bytes, ends), next };
}

/** A range is cut at its array's end, and one out of order is empty (as `Buffer.toString` reads them). */
function compareBytes(a: Uint8Array, aStart: number, aEnd: number, b: Uint8Array, bStart: number, bEnd: number): number {
  const aLength = Math.max(0, Math.min(aEnd, a.length) - aStart);
  const bLength = Math.max(0, Math.min(bEnd, b.length) - bStart);
  const length = Math.min(aLength, bLength);
  for (let i = 0; i < length; i++) {
    const difference = (a[aStart + i] as number) - (b[bStart + i] as number);
    if (difference !== 0) return difference;
  }
  return aLength - bLength;
}
