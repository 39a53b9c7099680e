/**
 * 32-bit hashing for feature hashing. FNV-1a is cheap to update one character at a time (character
 * n-grams reuse the prefix), and murmur3's finalizer spreads its weak low bits before we take a bucket.
 * These functions define stored vectors: changing any constant needs a new model version.
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a state before any character, for a feature namespace `seed`. */
export function hashStart(seed: number): number {
  return Math.imul(FNV_OFFSET ^ seed, FNV_PRIME) >>> 0;
}

/** FNV-1a step over one UTF-16 code unit. */
export function hashStep(hash: number, code: number): number {
  return Math.imul(hash ^ code, FNV_PRIME) >>> 0;
}

export function hashString(text: string, seed: number): number {
  let hash = hashStart(seed);
  for (let index = 0; index < text.length; index++) hash = hashStep(hash, text.charCodeAt(index));
  return finalize(hash);
}

/** murmur3 fmix32. */
export function finalize(hash: number): number {
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** An order-dependent hash of two hashes (word bigrams). */
export function hashPair(first: number, second: number, seed: number): number {
  return finalize((Math.imul(first ^ seed, 0x9e3779b1) + second) >>> 0);
}

/** Bucket and sign of a finished hash; the sign comes from a bit the bucket does not use. */
export function bucketOf(hash: number, dimensions: number): number {
  return (hash & 0x7fffffff) % dimensions;
}

export function signOf(hash: number): 1 | -1 {
  return hash & 0x80000000 ? -1 : 1;
}

/**
 * Sums weights and occurrence counts per 32-bit feature hash: open addressing over typed arrays, several
 * times faster than a Map for the few thousand features of a text. Reused between texts.
 */
export class FeatureTable {
  #keys = new Uint32Array(1024);
  #used = new Uint8Array(1024);
  #mass = new Float64Array(1024);
  #counts = new Float64Array(1024);
  #slots: number[] = [];

  add(hash: number, weight: number, occurrences: number): void {
    if ((this.#slots.length + 1) * 2 > this.#keys.length) this.#grow();
    const mask = this.#keys.length - 1;
    let slot = hash & mask;
    while (this.#used[slot] === 1 && this.#keys[slot] !== hash) slot = (slot + 1) & mask;
    if (this.#used[slot] === 0) {
      this.#used[slot] = 1;
      this.#keys[slot] = hash;
      this.#mass[slot] = 0;
      this.#counts[slot] = 0;
      this.#slots.push(slot);
    }
    this.#mass[slot]! += weight * occurrences;
    this.#counts[slot]! += occurrences;
  }

  /** Calls `visit` once per feature in insertion order, then empties the table. */
  drain(visit: (hash: number, mass: number, count: number) => void): void {
    for (const slot of this.#slots) {
      visit(this.#keys[slot]!, this.#mass[slot]!, this.#counts[slot]!);
      this.#used[slot] = 0;
    }
    this.#slots = [];
  }

  #grow(): void {
    const old = { keys: this.#keys, mass: this.#mass, counts: this.#counts, slots: this.#slots };
    const size = this.#keys.length * 2;
    this.#keys = new Uint32Array(size);
    this.#used = new Uint8Array(size);
    this.#mass = new Float64Array(size);
    this.#counts = new Float64Array(size);
    this.#slots = [];
    for (const slot of old.slots) {
      const count = old.counts[slot]!;
      this.add(old.keys[slot]!, old.mass[slot]! / count, count);
    }
  }
}
