/**
 * Strings ↔ small numbers, numbered 0, 1, 2… in order of first use: how the bm25 index and the
 * HNSW collection keep a datasource id or custom id per entry as one number in a typed array.
 *
 * The string → number map is built on first lookup: a loaded snapshot or header brings every name
 * (100k at one datasource per document) and a search without filters never looks one up. Loaded
 * names stay packed until a write adds one.
 */
import { PackedStrings } from './packed-strings.js';

export class StringInterner {
  private numbers: Map<string, number> | undefined;
  private names: string[] = [];
  private loaded: PackedStrings | undefined;

  /**
   * @param loaded distinct names, taken as the numbers 0..n-1.
   * @param isLive whether a number still stands for its name when the map is rebuilt; numbers it
   *   refuses no longer resolve (an owner counting uses per number retires the unused ones).
   */
  constructor(
    loaded?: PackedStrings,
    private readonly isLive: (number: number) => boolean = () => true,
  ) {
    this.loaded = loaded !== undefined && loaded.length > 0 ? loaded : undefined;
    this.numbers = this.loaded === undefined ? new Map() : undefined;
  }

  /** Numbers handed out so far (retired ones included). */
  get size(): number {
    return this.loaded?.length ?? this.names.length;
  }

  numberOf(name: string): number | undefined {
    return this.lookup().get(name);
  }

  /** The name's number, a new one when it has none. */
  intern(name: string): number {
    const numbers = this.lookup();
    let number = numbers.get(name);
    if (number === undefined) {
      number = this.list().push(name) - 1;
      numbers.set(name, number);
    }
    return number;
  }

  /** The name of a number below `size` ('' once retired). */
  name(number: number): string {
    return this.loaded !== undefined ? this.loaded.at(number) : (this.names[number] as string);
  }

  /** The names by number, for a snapshot. */
  packed(): PackedStrings {
    return this.loaded ?? PackedStrings.of(this.names);
  }

  /** Drops the string → number map (the names stay); the next lookup rebuilds it. */
  forgetLookups(): void {
    if (this.size > 0) this.numbers = undefined;
  }

  /**
   * The number no longer stands for its name: a later `intern` of that name gives a new number.
   * The number itself is never handed out again (typed arrays may still hold it).
   */
  retire(number: number): void {
    const names = this.list();
    const name = names[number];
    if (name === undefined) return;
    if (this.numbers?.get(name) === number) this.numbers.delete(name);
    names[number] = '';
  }

  private list(): string[] {
    if (this.loaded !== undefined) {
      this.names = this.loaded.toArray();
      this.loaded = undefined;
    }
    return this.names;
  }

  /** The first live number of each name (a retired name read back as '' is skipped by `isLive`). */
  private lookup(): Map<string, number> {
    if (this.numbers === undefined) {
      const numbers = new Map<string, number>();
      this.list().forEach((name, number) => {
        if (this.isLive(number) && !numbers.has(name)) numbers.set(name, number);
      });
      this.numbers = numbers;
    }
    return this.numbers;
  }
}
