/**
 * A bm25 list over the character 4-grams of the stems a {@link LexicalIndex} stores, answered from
 * that index's own postings: the third list of a hybrid query (docs/decisions/022-scoring-past-bm25.md).
 *
 * A postings index of the 4-grams themselves retained ~108 MiB at 100k chunks, past the memory goal.
 * Here a 4-gram keeps only the stems holding it (and how often it occurs in each, boundary-marked
 * `<stem>`), its document frequency, and each chunk its length in 4-grams; a chunk's tf of a 4-gram
 * is the sum, over the stems holding it, of the stem's tf times those occurrences. So the scores
 * equal bm25 over every chunk's 4-grams of stems, with Lucene's idf, computed term at a time.
 *
 * Stems of one character and stopwords have no 4-grams (a stopword's 4-grams matched everything).
 * 4-grams are of code points, so no 4-gram splits a character beyond U+FFFF (a snapshot keeps them
 * as UTF-8). The query reads only its 4-grams found in at most 5% of the chunks: the common ones
 * ("tion", "ing>") carry little and made every query read most postings.
 */
import type { ScoredId } from '../../src/ports/records.js';
import { ENGLISH_STOPWORDS } from '../../src/text/stopwords.js';
import { PackedStrings } from '../kit/packed-strings.js';
import { TopScores } from './top-scores.js';
import { grow } from './typed-arrays.js';

const GRAM = 4;
/** A query reads a 4-gram only if at most this share of the live chunks holds it. */
const STEM_GRAM_MAX_SHARE = 0.05;
/**
 * A holder is one int, `term * TIMES_UNIT + min(times, MANY_TIMES)`; MANY_TIMES means "count it in
 * the stem" (a stem of 34 characters or more repeating one 4-gram: rare enough to recount).
 */
const TIMES_UNIT = 32;
const MANY_TIMES = TIMES_UNIT - 1;
const DEAD = -1;
/** The words index's postings: `slot << SLOT_SHIFT | min(tf, LARGE_TF)` (see lexical-index.ts). */
const SLOT_SHIFT = 8;
const LARGE_TF = 255;
/** Term numbers → gram numbers remembered for writes; bounded like the stem cache of lexical-terms. */
const MAX_CACHED_TERMS = 32_768;
// Any UTF-16 surrogate: the text has characters beyond U+FFFF and is cut by code points.
const SURROGATE = /[\ud800-\udfff]/;

/** Calls `visit` with every 4-gram of `<stem>`, repeats included; none for a stem of one character or a stopword. */
function forEachStemGram(stem: string, visit: (gram: string) => void): void {
  if (ENGLISH_STOPWORDS.has(stem)) return;
  const marked = `<${stem}>`;
  if (!SURROGATE.test(marked)) {
    if (stem.length < 2) return;
    for (let start = 0; start + GRAM <= marked.length; start++) visit(marked.slice(start, start + GRAM));
    return;
  }
  const points = Array.from(marked);
  if (points.length < 4) return;
  for (let start = 0; start + GRAM <= points.length; start++) visit(points.slice(start, start + GRAM).join(''));
}

/** The 4-grams of `stems` with their counts, in order of first occurrence: a query's 4-grams and weights. */
function stemGramCounts(stems: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const stem of stems) forEachStemGram(stem, (gram) => counts.set(gram, (counts.get(gram) ?? 0) + 1));
  return counts;
}

/** An ASCII 4-gram as one number below 2^28 (7 bits a character, a small integer to V8); -1 for any other. */
function asciiKey(gram: string): number {
  if (gram.length !== GRAM) return -1;
  let key = 0;
  for (let i = 0; i < GRAM; i++) {
    const code = gram.charCodeAt(i);
    if (code >= 128) return -1;
    key = key * 128 + code;
  }
  return key;
}

/** The UTF-8 bytes of the ASCII 4-gram `key` into `bytes` at `at`. */
function writeKey(key: number, bytes: Uint8Array, at: number): void {
  for (let i = GRAM - 1; i >= 0; i--) {
    bytes[at + i] = key & 127;
    key = Math.floor(key / 128);
  }
}

function timesIn(stem: string, gram: string): number {
  let times = 0;
  forEachStemGram(stem, (found) => {
    if (found === gram) times += 1;
  });
  return times;
}

/**
 * What a snapshot keeps: the 4-grams in the order of their bytes; per 4-gram its document frequency
 * and its holders `holders[holderStarts[g]..holderStarts[g + 1])`, each `term * 32 + min(times, 31)`
 * with the terms numbered as in the state beside; per document its length in 4-grams.
 */
export interface StemGramState {
  grams: PackedStrings;
  df: Int32Array;
  holderStarts: Int32Array;
  holders: Int32Array;
  lengths: Int32Array;
}

/** The words index as this list reads it: its arena (postings `slot << 8 | min(tf, 255)`), per term its block and word. */
export interface StemPostings {
  arena: Uint32Array;
  /** Per slot; {@link DEAD} for a removed document. */
  lengths: Int32Array;
  /** Slots handed out (live or dead). */
  slots: number;
  live: number;
  /** First posting of the term's block; the block holds `size(term)` postings (-1: term dropped). */
  start(term: number): number;
  size(term: number): number;
  /** A posting's exact tf (its low byte reads 255 from 255 up). */
  tfOf(term: number, code: number): number;
  wordOf(term: number): string;
}

/** bm25's parameters (as the words index). */
interface Bm25 {
  k1: number;
  b: number;
}

export class StemGrams {
  /**
   * The grams numbered 0..sortedCount-1, in byte order (after a load or a trim: found by binary
   * search, never all decoded), and those added since, by a map of their own.
   */
  private sortedGrams: PackedStrings | undefined;
  private sortedCount = 0;
  private newKeys = new Map<number, number>();
  private newTexts = new Map<string, number>();
  /**
   * Per gram added since: its {@link asciiKey}, or -1 and its text in `newGramTexts`. A build from
   * rows adds every gram here; a string and a string-keyed map entry each (126k at 100k chunks) left
   * heap behind that numbers do not.
   */
  private newGramKeys: Int32Array<ArrayBufferLike> = new Int32Array(0);
  private newGramTexts = new Map<number, string>();
  private gramCount = 0;
  private df: Int32Array<ArrayBufferLike> = new Int32Array(256);
  /** Holders of the gram numbers below `baseGrams`, in one block. */
  private holderStarts: Int32Array<ArrayBufferLike> = new Int32Array(1);
  private holders: Int32Array<ArrayBufferLike> = new Int32Array(0);
  private baseGrams = 0;
  /**
   * Holders added since (new terms), a list per gram through typed arrays: `addedHead[gram]` is its
   * latest entry (-1: none), `addedNext` the one before. A build from rows adds every holder here;
   * an array per gram (126k at 100k chunks) left tens of MiB of heap behind it.
   */
  private addedHead: Int32Array | null = null;
  private addedHolder: Int32Array<ArrayBufferLike> = new Int32Array(0);
  private addedNext: Int32Array<ArrayBufferLike> = new Int32Array(0);
  private addedCount = 0;
  /** Holders whose term was dropped: skipped by searches, removed by the next `trim`. */
  private deadHolders = 0;
  /** Per slot: length in 4-grams ({@link DEAD} for a removed document), and their sum over live documents. */
  private lengths: Int32Array<ArrayBufferLike> = new Int32Array(256);
  private totalLength = 0;
  /**
   * While a build from rows adds its chunks (`deferCounts`), document frequencies wait for `trim`
   * (one pass over the postings) and a chunk's length needs only each term's number of 4-grams:
   * keeping every chunk's 4-grams counted as it came cached thousands of small arrays, and the heap
   * the build left behind stood tens of MiB above the list itself at 100k chunks.
   */
  private countsDeferred = false;
  private termGramLength: Int32Array<ArrayBufferLike> = new Int32Array(0);
  /** A term's 4-gram numbers, repeats included, for writes. */
  private readonly termGrams = new Map<number, Int32Array>();
  /** `addDocument` / `removeDocument` counting: the call that last met a gram. */
  private gramMark: Int32Array<ArrayBufferLike> = new Int32Array(256);
  private calls = 0;
  /**
   * A search's tf and score per slot (grown to the slots), the slots it scored and those a 4-gram
   * met: kept between searches, so a query allocates next to nothing (at 100k chunks a query meets
   * thousands; lists of them made per query grew the young heap).
   */
  private tfScratch = new Int32Array(0);
  private scoreScratch = new Float64Array(0);
  private readonly touched = new SlotList();
  private readonly chunks = new SlotList();

  constructor(private readonly bm25: Bm25) {}

  /** A gram's number: by binary search in the sorted grams, else in the map of those added since. */
  private gramOf(gram: string): number | undefined {
    const sorted = this.sortedGrams;
    if (sorted === undefined) return this.newGramOf(gram);
    return sorted.indexOfSorted(gram) ?? this.newGramOf(gram);
  }

  private newGramOf(gram: string): number | undefined {
    const key = asciiKey(gram);
    return key >= 0 ? this.newKeys.get(key) : this.newTexts.get(gram);
  }

  /** From now until `trim` (or a search), chunks come in bulk: see `countsDeferred`. No effect once a term is in. */
  deferCounts(): void {
    // Only from empty: the terms before would have no count of their 4-grams.
    if (this.gramCount === 0 && this.totalLength === 0) this.countsDeferred = true;
  }

  /** A new term of the words index: it becomes a holder of its 4-grams. */
  addTerm(term: number, word: string): void {
    if (this.countsDeferred && term >= this.termGramLength.length) {
      this.termGramLength = grow(this.termGramLength, Math.max(256, term * 2));
    }
    const counts = new Map<number, number>();
    forEachStemGram(word, (text) => {
      let gram = this.gramOf(text);
      if (gram === undefined) {
        gram = this.gramCount++;
        if (gram >= this.df.length) {
          this.df = grow(this.df, Math.max(256, gram * 2));
          this.gramMark = grow(this.gramMark, Math.max(256, gram * 2));
        }
        this.df[gram] = 0;
        this.gramMark[gram] = 0;
        const added = gram - this.sortedCount;
        if (added >= this.newGramKeys.length) this.newGramKeys = grow(this.newGramKeys, Math.max(256, added * 2));
        const key = asciiKey(text);
        this.newGramKeys[added] = key;
        if (key >= 0) {
          this.newKeys.set(key, gram);
        } else {
          this.newTexts.set(text, gram);
          this.newGramTexts.set(gram, text);
        }
      }
      counts.set(gram, (counts.get(gram) ?? 0) + 1);
    });
    let length = 0;
    for (const [gram, times] of counts) {
      this.addHolder(gram, term * TIMES_UNIT + Math.min(times, MANY_TIMES));
      length += times;
    }
    if (this.countsDeferred) this.termGramLength[term] = length;
  }

  private addHolder(gram: number, holder: number): void {
    let heads = this.addedHead;
    if (heads === null || gram >= heads.length) {
      const grown = new Int32Array(Math.max(256, this.gramCount * 2, gram + 1)).fill(-1);
      if (heads !== null) grown.set(heads);
      this.addedHead = heads = grown;
    }
    const entry = this.addedCount++;
    if (entry === this.addedHolder.length) {
      const capacity = Math.max(1024, entry * 2);
      this.addedHolder = grow(this.addedHolder, capacity);
      this.addedNext = grow(this.addedNext, capacity);
    }
    this.addedHolder[entry] = holder;
    this.addedNext[entry] = heads[gram] as number;
    heads[gram] = entry;
  }

  /** Calls `visit` with each holder of `gram`: those of the block, then those added since. */
  private forEachHolder(gram: number, visit: (holder: number) => void): void {
    if (gram < this.baseGrams) {
      const end = this.holderStarts[gram + 1] as number;
      for (let h = this.holderStarts[gram] as number; h < end; h++) visit(this.holders[h] as number);
    }
    const heads = this.addedHead;
    if (heads === null || gram >= heads.length) return;
    for (let entry = heads[gram] as number; entry >= 0; entry = this.addedNext[entry] as number) visit(this.addedHolder[entry] as number);
  }

  /** A term the words index dropped (no document holds it): its holders are skipped from now on. */
  dropTerm(term: number, word: string): void {
    let grams = 0;
    forEachStemGram(word, () => (grams += 1));
    // Distinct grams of the word are what it holds; counting repeats only trims a little early.
    this.deadHolders += grams;
    this.termGrams.delete(term);
  }

  /** The term's 4-gram numbers (repeats included), as its word cuts them. */
  private gramsOfTerm(term: number, word: () => string): Int32Array {
    let grams = this.termGrams.get(term);
    if (grams === undefined) {
      const found: number[] = [];
      forEachStemGram(word(), (text) => {
        const gram = this.gramOf(text);
        if (gram !== undefined) found.push(gram);
      });
      grams = Int32Array.from(found);
      if (this.termGrams.size >= MAX_CACHED_TERMS) this.termGrams.clear();
      this.termGrams.set(term, grams);
    }
    return grams;
  }

  /** Room for `slots` slots. */
  reserve(slots: number): void {
    if (slots > this.lengths.length) this.lengths = grow(this.lengths, Math.max(slots, this.lengths.length * 2));
  }

  /** A document added in `slot` with these distinct terms and their tfs. */
  addDocument(slot: number, terms: ArrayLike<number>, tfs: ArrayLike<number>, wordOf: (term: number) => string): void {
    this.reserve(slot + 1);
    if (this.countsDeferred) {
      let counted = 0;
      for (let i = 0; i < terms.length; i++) counted += (this.termGramLength[terms[i] as number] ?? 0) * (tfs[i] as number);
      this.lengths[slot] = counted;
      this.totalLength += counted;
      return;
    }
    const mark = ++this.calls;
    let length = 0;
    for (let i = 0; i < terms.length; i++) {
      const term = terms[i] as number;
      const grams = this.gramsOfTerm(term, () => wordOf(term));
      length += grams.length * (tfs[i] as number);
      for (const gram of grams) {
        if (this.gramMark[gram] === mark) continue;
        this.gramMark[gram] = mark;
        this.df[gram] = (this.df[gram] as number) + 1;
      }
    }
    this.lengths[slot] = length;
    this.totalLength += length;
  }

  /** The document in `slot` removed; `terms` are its distinct terms. */
  removeDocument(slot: number, terms: readonly number[], wordOf: (term: number) => string): void {
    const mark = ++this.calls;
    for (const term of this.countsDeferred ? [] : terms) {
      for (const gram of this.gramsOfTerm(term, () => wordOf(term))) {
        if (this.gramMark[gram] === mark) continue;
        this.gramMark[gram] = mark;
        this.df[gram] = Math.max(0, (this.df[gram] as number) - 1);
      }
    }
    this.totalLength -= this.lengths[slot] as number;
    this.lengths[slot] = DEAD;
  }

  /** Slots renumbered by the words index: `mapping[old]` is the new slot or -1. */
  renumberSlots(mapping: Int32Array, capacity: number): void {
    const lengths = new Int32Array(capacity);
    for (let slot = 0; slot < mapping.length; slot++) {
      const next = mapping[slot] as number;
      if (next !== DEAD) lengths[next] = this.lengths[slot] as number;
    }
    this.lengths = lengths;
  }

  /**
   * Gives the holders one block again, the grams in byte order, without the dropped terms' holders
   * and the grams left with none, and forgets the maps only writes use (rebuilt on first need).
   * `isLive(term)`: the term still has a block in the words index.
   */
  trim(index: StemPostings): void {
    this.settleCounts(index);
    const isLive = (term: number) => index.size(term) >= 0;
    const { grams, df, holderStarts, holders } = this.compacted(isLive, (term) => term);
    this.sortedGrams = grams;
    this.sortedCount = grams.length;
    this.newKeys = new Map();
    this.newTexts = new Map();
    this.newGramKeys = new Int32Array(0);
    this.newGramTexts = new Map();
    this.gramCount = grams.length;
    this.df = df;
    this.gramMark = new Int32Array(grams.length);
    this.holderStarts = holderStarts;
    this.holders = holders;
    this.baseGrams = grams.length;
    this.addedHead = null;
    this.addedHolder = new Int32Array(0);
    this.addedNext = new Int32Array(0);
    this.addedCount = 0;
    this.deadHolders = 0;
    this.termGrams.clear();
  }

  /** Whether enough holders are dead that a `trim` is worth its copy. */
  get wantsTrim(): boolean {
    return this.deadHolders > 1024 && this.deadHolders * 4 > this.holders.length + this.addedCount;
  }

  /** The grams still held by a live term, in byte order, with their holders renamed by `termOf` (a term's new number, or -1: gone). */
  private compacted(isLive: (term: number) => boolean, termOf: (term: number) => number) {
    const renamed = (holder: number): number => {
      const term = Math.floor(holder / TIMES_UNIT);
      const next = isLive(term) ? termOf(term) : DEAD;
      return next === DEAD ? DEAD : next * TIMES_UNIT + (holder % TIMES_UNIT);
    };
    // Two passes over typed arrays: holders per gram, then the holders in the grams' new order.
    const counts = new Int32Array(this.gramCount);
    let total = 0;
    for (let gram = 0; gram < this.gramCount; gram++) {
      this.forEachHolder(gram, (holder) => {
        if (renamed(holder) !== DEAD) counts[gram] = (counts[gram] as number) + 1;
      });
      total += counts[gram] as number;
    }
    let keptCount = 0;
    for (let gram = 0; gram < this.gramCount; gram++) if ((counts[gram] as number) > 0) keptCount += 1;
    const kept = new Int32Array(keptCount);
    keptCount = 0;
    for (let gram = 0; gram < this.gramCount; gram++) if ((counts[gram] as number) > 0) kept[keptCount++] = gram;
    let grams: PackedStrings;
    let order: Int32Array;
    if (this.gramCount === this.sortedCount && this.sortedGrams !== undefined && kept.length === this.sortedCount) {
      // Loaded or trimmed, nothing added or dropped since: already in order.
      grams = this.sortedGrams;
      order = Int32Array.from(kept.keys());
    } else {
      const texts = this.packed(kept);
      order = Int32Array.from(kept.keys()).sort((x, y) => texts.compare(x, y));
      grams = reordered(texts, order);
    }
    const df = new Int32Array(order.length);
    const holderStarts = new Int32Array(order.length + 1);
    const holders = new Int32Array(total);
    let at = 0;
    order.forEach((position, gram) => {
      const old = kept[position] as number;
      df[gram] = this.df[old] as number;
      const begin = at;
      this.forEachHolder(old, (holder) => {
        const next = renamed(holder);
        if (next !== DEAD) holders[at++] = next;
      });
      holders.subarray(begin, at).sort();
      holderStarts[gram + 1] = at;
    });
    return { grams, df, holderStarts, holders };
  }

  /** The texts of `grams` as a packed list, written from their bytes (no string made per gram). */
  private packed(grams: Int32Array): PackedStrings {
    const pieces = new Map<number, Uint8Array>();
    let total = 0;
    const sorted = this.sortedGrams;
    const rangeOf = (gram: number): [number, number] => [gram === 0 ? 0 : (sorted!.ends[gram - 1] as number), sorted!.ends[gram] as number];
    for (const gram of grams) {
      if (gram < this.sortedCount) {
        const [start, end] = rangeOf(gram);
        total += end - start;
      } else if ((this.newGramKeys[gram - this.sortedCount] as number) >= 0) {
        total += GRAM;
      } else {
        const piece = Buffer.from(this.newGramTexts.get(gram) as string, 'utf8');
        pieces.set(gram, piece);
        total += piece.length;
      }
    }
    const bytes = Buffer.allocUnsafeSlow(total);
    const ends = new Uint32Array(grams.length);
    let at = 0;
    grams.forEach((gram, i) => {
      if (gram < this.sortedCount) {
        const [start, end] = rangeOf(gram);
        bytes.set(sorted!.bytes.subarray(start, end), at);
        at += end - start;
      } else {
        const key = this.newGramKeys[gram - this.sortedCount] as number;
        if (key >= 0) {
          writeKey(key, bytes, at);
          at += GRAM;
        } else {
          const piece = pieces.get(gram) as Uint8Array;
          bytes.set(piece, at);
          at += piece.length;
        }
      }
      ends[i] = at;
    });
    return new PackedStrings(bytes, ends);
  }

  /** The state for a snapshot: terms renamed by `termOf` (-1: not exported), slots by `slotMapping` (-1: removed). */
  exportState(index: StemPostings, termOf: (term: number) => number, slotMapping: Int32Array, live: number): StemGramState {
    this.settleCounts(index);
    const { grams, df, holderStarts, holders } = this.compacted(() => true, termOf);
    const lengths = new Int32Array(live);
    for (let slot = 0; slot < slotMapping.length; slot++) {
      const next = slotMapping[slot] as number;
      if (next !== DEAD) lengths[next] = this.lengths[slot] as number;
    }
    return { grams, df, holderStarts, holders, lengths };
  }

  /** The list of a loaded state (taken over, not copied): its arrays must match `terms` and `documents`. */
  static fromState(state: StemGramState, bm25: Bm25, terms: number, documents: number): StemGrams {
    const { grams, df, holderStarts, holders, lengths } = state;
    if (df.length !== grams.length || holderStarts.length !== grams.length + 1 || lengths.length !== documents) {
      throw new Error('stem 4-gram state: arrays of another length');
    }
    if (holderStarts[grams.length] !== holders.length) throw new Error('stem 4-gram state: holders of another length');
    for (const holder of holders)
      if (!(holder >= 0 && Math.floor(holder / TIMES_UNIT) < terms)) throw new Error('stem 4-gram state: holder out of range');
    const list = new StemGrams(bm25);
    list.sortedGrams = grams;
    list.sortedCount = grams.length;
    list.gramCount = grams.length;
    list.df = df;
    list.gramMark = new Int32Array(grams.length);
    list.holderStarts = holderStarts;
    list.holders = holders;
    list.baseGrams = grams.length;
    list.lengths = lengths;
    for (const length of lengths) list.totalLength += length;
    return list;
  }

  /**
   * The list of an index loaded without one (an older snapshot): every live term's 4-grams, then
   * per gram the chunks of its holders (df), and per chunk its stems' tfs times their 4-grams.
   */
  static derive(index: StemPostings, terms: number, bm25: Bm25): StemGrams {
    const list = new StemGrams(bm25);
    list.reserve(index.slots);
    list.deferCounts();
    for (let term = 0; term < terms; term++) if (index.size(term) > 0) list.addTerm(term, index.wordOf(term));
    const gramLength = list.termGramLength;
    for (let term = 0; term < terms; term++) {
      const size = index.size(term);
      if (size <= 0 || !((gramLength[term] ?? 0) > 0)) continue;
      const start = index.start(term);
      for (let p = start; p < start + size; p++) {
        const code = index.arena[p] as number;
        const slot = code >>> SLOT_SHIFT;
        if (index.lengths[slot] === DEAD) continue;
        list.lengths[slot] = (list.lengths[slot] as number) + index.tfOf(term, code) * (gramLength[term] as number);
      }
    }
    for (let slot = 0; slot < index.slots; slot++) {
      if (index.lengths[slot] === DEAD) list.lengths[slot] = DEAD;
      else list.totalLength += list.lengths[slot] as number;
    }
    list.trim(index);
    return list;
  }

  /** Document frequencies counted after a bulk of chunks (`deferCounts`): per 4-gram, the live chunks its holders' postings name. */
  private settleCounts(index: StemPostings): void {
    if (!this.countsDeferred) return;
    this.countsDeferred = false;
    this.termGramLength = new Int32Array(0);
    const seen = new Int32Array(index.slots).fill(-1);
    for (let gram = 0; gram < this.gramCount; gram++) {
      let df = 0;
      this.forEachHolder(gram, (holder) => {
        const term = Math.floor(holder / TIMES_UNIT);
        const size = index.size(term);
        if (size <= 0) return;
        const start = index.start(term);
        for (let p = start; p < start + size; p++) {
          const slot = (index.arena[p] as number) >>> SLOT_SHIFT;
          if (index.lengths[slot] === DEAD || seen[slot] === gram) continue;
          seen[slot] = gram;
          df += 1;
        }
      });
      this.df[gram] = df;
    }
  }

  /**
   * The `depth` best chunks for the 4-grams of `queryStems` found in at most 5% of the live chunks,
   * by bm25 over each chunk's 4-grams of stems, best first, equal scores by id; `accept` filters
   * slots (the words index's compiled filter). Term at a time: a 4-gram's tf in a chunk is summed
   * over its holders' postings before its part is scored, so the scores are exhaustive bm25's.
   */
  search(
    index: StemPostings,
    queryStems: readonly string[],
    depth: number,
    accept: true | ((slot: number) => boolean),
    idOf: (slot: number) => string,
  ): ScoredId[] {
    const live = index.live;
    if (!(depth > 0) || live === 0) return [];
    this.settleCounts(index);
    const { k1, b } = this.bm25;
    const average = this.totalLength / live;
    if (this.tfScratch.length < index.slots) {
      this.tfScratch = new Int32Array(index.slots);
      this.scoreScratch = new Float64Array(index.slots);
    }
    const scores = this.scoreScratch;
    const { touched, chunks } = this;
    touched.size = 0;
    for (const [text, weight] of stemGramCounts(queryStems)) {
      const gram = this.gramOf(text);
      if (gram === undefined) continue;
      const df = this.df[gram] as number;
      if (df === 0 || df > STEM_GRAM_MAX_SHARE * live) continue;
      const idf = weight * Math.log(1 + (live - df + 0.5) / (df + 0.5));
      chunks.size = 0;
      if (gram < this.baseGrams) {
        const end = this.holderStarts[gram + 1] as number;
        for (let h = this.holderStarts[gram] as number; h < end; h++) this.readHolder(index, this.holders[h] as number, text, chunks);
      }
      const heads = this.addedHead;
      if (heads !== null && gram < heads.length) {
        for (let entry = heads[gram] as number; entry >= 0; entry = this.addedNext[entry] as number) {
          this.readHolder(index, this.addedHolder[entry] as number, text, chunks);
        }
      }
      const tf = this.tfScratch;
      for (let c = 0; c < chunks.size; c++) {
        const slot = chunks.items[c] as number;
        const f = tf[slot] as number;
        tf[slot] = 0;
        const length = this.lengths[slot] as number;
        // A removed chunk's postings stay until the words index drops them; its length says so.
        if (length === DEAD) continue;
        if (scores[slot] === 0) touched.push(slot);
        const norm = 1 - b + (b * length) / average;
        scores[slot] = (scores[slot] as number) + idf * ((f * (k1 + 1)) / (f + k1 * norm));
      }
    }
    // The accepted slots move to the front of `touched`; the others' scores are cleared now.
    let accepted = 0;
    for (let t = 0; t < touched.size; t++) {
      const slot = touched.items[t] as number;
      if (accept === true || accept(slot)) touched.items[accepted++] = slot;
      else scores[slot] = 0;
    }
    const hits = bestOf(touched.items.subarray(0, accepted), scores, Math.floor(depth), idOf);
    for (let t = 0; t < accepted; t++) scores[touched.items[t] as number] = 0;
    return hits;
  }

  /**
   * Adds one holder's postings to the 4-gram's tf per slot (`tfScratch`), listing the slots met
   * first in `chunks`. Postings are read as the words index stores them: `slot << 8 | min(tf, 255)`.
   */
  private readHolder(index: StemPostings, holder: number, gram: string, chunks: SlotList): void {
    const term = Math.floor(holder / TIMES_UNIT);
    const size = index.size(term);
    if (size <= 0) return;
    let times = holder % TIMES_UNIT;
    if (times === MANY_TIMES) times = timesIn(index.wordOf(term), gram);
    const { arena } = index;
    const tf = this.tfScratch;
    const start = index.start(term);
    for (let p = start; p < start + size; p++) {
      const code = arena[p] as number;
      const slot = code >>> SLOT_SHIFT;
      let count = code & LARGE_TF;
      if (count === LARGE_TF) count = index.tfOf(term, code);
      if (tf[slot] === 0) chunks.push(slot);
      tf[slot] = (tf[slot] as number) + count * times;
    }
  }

  /** Sizes for reports: 4-grams, holders, and the bytes of the arrays. */
  stats(): { grams: number; holders: number; bytes: number } {
    const holders = this.holders.length + this.addedCount;
    const text = (this.sortedGrams?.serializedLength ?? 0) + this.newGramKeys.byteLength;
    const bytes =
      text + this.df.byteLength + this.gramMark.byteLength + this.holderStarts.byteLength + holders * 4 + this.lengths.byteLength;
    return { grams: this.gramCount, holders, bytes };
  }
}

/** A list of slots in a typed array that grows by doubling and is reused. */
class SlotList {
  items = new Int32Array(1024);
  size = 0;

  push(slot: number): void {
    if (this.size === this.items.length) {
      const items = new Int32Array(this.items.length * 2);
      items.set(this.items);
      this.items = items;
    }
    this.items[this.size++] = slot;
  }
}

/** `list` in the order `order` gives (its positions), bytes copied. */
function reordered(list: PackedStrings, order: Int32Array): PackedStrings {
  const bytes = Buffer.allocUnsafeSlow(list.bytes.byteLength);
  const ends = new Uint32Array(order.length);
  let at = 0;
  order.forEach((position, i) => {
    const start = position === 0 ? 0 : (list.ends[position - 1] as number);
    const end = list.ends[position] as number;
    bytes.set(list.bytes.subarray(start, end), at);
    at += end - start;
    ends[i] = at;
  });
  return new PackedStrings(bytes, ends);
}

/**
 * The `depth` best of `slots` by score, equal scores by id, best first. Only the hits kept and the
 * ties at the cut get their ids: a query's 4-grams meet thousands of chunks at 100k, and decoding
 * every id cost more than scoring them.
 */
function bestOf(slots: Int32Array, scores: Float64Array, depth: number, idOf: (slot: number) => string): ScoredId[] {
  if (depth < 1) return [];
  const top = new TopScores(depth);
  for (const slot of slots) top.offer(slot, scores[slot] as number);
  return top.results(idOf);
}
