import type { PackedStrings } from '../../kit/packed-strings.js';

/**
 * Id → label over a loaded header's packed ids (`LabelTable` after `adopt`), without decoding them:
 * a table of labels addressed by a hash of each id's UTF-8 bytes, compared by bytes on lookup.
 * Scoring lexical hits by the graph (`similarities`) needs the labels of a few ids per query; the
 * table's own id → label map decodes every id into a string of its own (see
 * docs/decisions/012-packed-string-lists.md), a string and a map entry per id: for 32-character
 * ids 19-21 ms at 100k and 380-470 ms at 1M, in one turn of the event loop. This index took 6 ms at
 * 100k and 63 ms at 1M, holds 4 bytes a slot (1 MiB at 100k, 8 MiB at 1M), and answers a lookup in
 * ~1 µs (measured apart, 2026-11-28).
 */
export class PackedIdIndex {
  private readonly slots: Int32Array;
  private readonly mask: number;

  /** `live(label)`: whether the label's id is an entry (removed labels have an empty id). */
  constructor(
    private readonly ids: PackedStrings,
    live: (label: number) => boolean,
  ) {
    let size = 16;
    while (size < ids.length * 2) size *= 2;
    this.slots = new Int32Array(size).fill(-1);
    this.mask = size - 1;
    const { bytes, ends } = ids;
    for (let label = 0; label < ids.length; label++) {
      if (!live(label)) continue;
      let slot = hashBytes(bytes, label === 0 ? 0 : (ends[label - 1] as number), ends[label] as number) & this.mask;
      while ((this.slots[slot] as number) >= 0) slot = (slot + 1) & this.mask;
      this.slots[slot] = label;
    }
  }

  /** The first live label with this id (a hand-edited header may name one twice), else undefined. */
  labelOf(id: string): number | undefined {
    const key = Buffer.from(id, 'utf8');
    for (let slot = hashBytes(key, 0, key.length) & this.mask; ; slot = (slot + 1) & this.mask) {
      const label = this.slots[slot] as number;
      if (label < 0) return undefined;
      if (this.ids.compareTo(label, key) === 0) return label;
    }
  }
}

/** FNV-1a over `bytes[start, end)`. */
function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ (bytes[i] as number), 0x01000193);
  return hash >>> 0;
}
