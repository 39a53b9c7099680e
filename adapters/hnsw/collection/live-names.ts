import type { PackedStrings } from '../../kit/packed-strings.js';
import { StringInterner } from '../../kit/string-interner.js';

/**
 * Datasource ids or custom ids ↔ small numbers, with a live count per number. A number whose count
 * falls to 0 is retired (its name no longer resolves to it), so removed datasources do not
 * accumulate in the map.
 */
export class LiveNames {
  private names = new StringInterner(undefined, (number) => this.count(number) > 0);
  /** Live entries per number, for numbers below `size`. */
  private counts: Int32Array<ArrayBufferLike> = new Int32Array(16);
  private size = 0;

  /** Takes `names` (distinct) as the numbers 0..n-1, with their live counts, in place of any held. */
  adopt(names: PackedStrings, counts: Int32Array): void {
    this.names = new StringInterner(names, (number) => this.count(number) > 0);
    this.counts = counts;
    this.size = counts.length;
  }

  intern(name: string): number {
    const number = this.names.intern(name);
    if (number === this.size) {
      if (this.size === this.counts.length) {
        const grown = new Int32Array(Math.max(16, this.size * 2));
        grown.set(this.counts);
        this.counts = grown;
      }
      this.counts[this.size++] = 0;
    }
    return number;
  }

  /** -1 when no live entry has the name. */
  numberOf(name: string): number {
    return this.names.numberOf(name) ?? -1;
  }

  name(number: number): string {
    return this.names.name(number);
  }

  count(number: number): number {
    return number < 0 || number >= this.size ? 0 : (this.counts[number] as number);
  }

  add(number: number, delta: number): void {
    const count = (this.counts[number] as number) + delta;
    this.counts[number] = count;
    if (count === 0) this.names.retire(number);
  }
}
