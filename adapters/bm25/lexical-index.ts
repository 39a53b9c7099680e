/**
 * An in-memory inverted index over one datastore's chunks, answering exact bm25 top-k queries with
 * MaxScore-style early termination.
 *
 * Why in memory: FTS5's bm25() costs 2-4 µs per matching row, so at 100k chunks a query with one
 * common word took ~90 ms, and pruning the query to its rarest words (the previous answer) cost
 * nDCG (0.60 → 0.44 at 100k). Here a posting costs a few nanoseconds, and the common words are
 * mostly never scanned: see `search`.
 *
 * Layout: terms are numbers; each term's postings sit in ascending slot order in a block of one
 * shared `Uint32Array` (the arena), and its statistics in typed arrays indexed by term number
 * (a document's slot is assigned when it is added, so appending keeps the order). A posting is one
 * int, `slot << 8 | tf`: a tf of 255 or more reads 255 there and is kept exactly in a map beside
 * (rare: a word 255 times in one chunk), so scores stay exact. One int instead of a (slot, tf)
 * pair of ints halved the arena (29 -> 14 MB at 100k abstract-sized chunks); it limits a datastore
 * to 2^24 slots, over 16 million chunks. A block that fills up moves to the end of the arena at
 * twice its capacity; the arena is compacted once abandoned blocks make up half of it. No object
 * per term: at 100k chunks with ~120k distinct terms, a term object plus its own small `Int32Array` per term cost tens of MB of heap, and
 * loading a snapshot created two objects per term (docs/decisions/017-memory-at-100k.md). Removing a document
 * only marks its slot dead and lowers the document frequencies of its terms (the caller passes the
 * removed text again); dead pairs are dropped from a list when a search meets a list that is a
 * quarter dead, and all slots are renumbered once dead slots outnumber live ones.
 */
import { PackedStrings } from '../kit/packed-strings.js';
import { StringInterner } from '../kit/string-interner.js';
import { RagdeskError } from '../../src/errors.js';
import type { RetrievalFilter, ScoredId } from '../../src/ports/records.js';
import { scanWords, stem, type AnalysedText } from './lexical-terms.js';
import { StemGrams, type StemGramState, type StemPostings } from './stem-grams.js';
import { TopScores } from './top-scores.js';
import { grow } from './typed-arrays.js';

/** bm25's term-frequency saturation (k1) and length normalisation (b); FTS5's and Lucene's defaults. */
export interface Bm25Parameters {
  k1: number;
  b: number;
}

export const DEFAULT_BM25: Bm25Parameters = { k1: 1.2, b: 0.75 };

/** What the index keeps about a chunk besides its words: what results and filters need. */
export interface IndexedChunk {
  id: string;
  datasourceId: string;
  customId: string | null;
}

interface QueryTerm {
  term: number;
  idf: number;
  bound: number;
}

/** Bounds are compared with this slack, so rounding never prunes a document that could still tie. */
const SLACK = 1 + 1e-9;
const DEAD = -1;
/** minLength of a term with no pairs yet. */
const MAX_LENGTH = 0x7fff_ffff;
/** A posting is `slot * SLOT_UNIT + min(tf, LARGE_TF)`; `>>> SLOT_SHIFT` and `& LARGE_TF` read it back (uint32). */
const SLOT_SHIFT = 8;
const SLOT_UNIT = 2 ** SLOT_SHIFT;
const LARGE_TF = SLOT_UNIT - 1;
/** Slots a posting can name; also the multiplier of a term number in a large-tf key. */
const MAX_SLOTS = 2 ** 24;

function posting(slot: number, tf: number): number {
  return slot * SLOT_UNIT + Math.min(tf, LARGE_TF);
}

/** The exact tf of `code`, a posting of `term`: its low byte, or the large-tf map's entry. */
function exactTf(largeTf: ReadonlyMap<number, number>, term: number, code: number): number {
  const tf = code & LARGE_TF;
  return tf === LARGE_TF ? (largeTf.get(largeTfKey(term, code >>> SLOT_SHIFT)) ?? LARGE_TF) : tf;
}

/** Key of a (term, slot) pair in the large-tf map; exact while term numbers stay below 2^29. */
function largeTfKey(term: number, slot: number): number {
  return term * MAX_SLOTS + slot;
}

/**
 * Everything an index holds, live documents only, as flat arrays: what a snapshot stores. Slot i
 * of the arrays is document i; the postings of term t are `termStarts[t]` (inclusive) to
 * `termStarts[t + 1]` of `postings`, each `slot << 8 | min(tf, 255)`; `largeTfs` holds the exact tf
 * of every posting that reads 255, as (term, slot, tf) triples.
 */
export interface LexicalIndexState {
  ids: PackedStrings;
  lengths: Int32Array;
  sources: Int32Array;
  tenants: Int32Array;
  sourceIds: PackedStrings;
  tenantIds: PackedStrings;
  /**
   * Term t's word is `words.at(t)`. `exportState` numbers the terms in the order of their words'
   * bytes (code point order): an index loaded from such a state finds a query's terms by binary
   * search, and builds its word → term map only when a write first needs it (at 100k chunks,
   * 120k entries: ~50 ms of the first query).
   */
  words: PackedStrings;
  termStarts: Int32Array;
  postings: Uint32Array;
  largeTfs: Int32Array;
  /** Per term: largest tf and shortest document among its pairs (MaxScore's bounds). */
  maxTf: Int32Array;
  minLength: Int32Array;
  /** The 4-grams of the stems (adapters/bm25/stem-grams.ts); absent in older snapshots, then derived on load. */
  stemGrams?: StemGramState;
}

export class LexicalIndex {
  /**
   * Stem → term number. Dropped terms leave it; their numbers are not reused until `renumber`.
   * Undefined after loading a state whose words are in order, until first needed (see `termNumbers`).
   */
  private termMap: Map<string, number> | undefined = new Map();
  /**
   * The loaded state's words, in order (term t's word is `sortedWords.at(t)`), while `termMap` is
   * not built; `words` is filled from them then.
   */
  private sortedWords: PackedStrings | undefined;
  private words: string[] = [];
  /**
   * Folded word → its term number, for `addText`: one map lookup per token instead of stemming
   * and counting through maps (the index build spent most of its time in those lookups).
   */
  private readonly termOfWord = new Map<string, number>();
  private termCount = 0;
  /** Per term: block start and capacity in `arena`, in postings; postings in use (-1: dropped). */
  private blockStart = new Int32Array(256);
  private blockPairs = new Int32Array(256);
  private pairCount = new Int32Array(256);
  /** Per term: live documents holding it; largest tf and shortest document among its pairs. */
  private df = new Int32Array(256);
  private maxTf: Int32Array<ArrayBufferLike> = new Int32Array(256);
  private minLength: Int32Array<ArrayBufferLike> = new Int32Array(256);
  /** `addText` counting: the call that last met the term (`addCalls`) and the term's count in it. */
  private docMark = new Int32Array(256);
  private docTf = new Int32Array(256);
  private arena: Uint32Array = new Uint32Array(1024);
  /** Exact tf of the postings that read {@link LARGE_TF}, by {@link largeTfKey}. */
  private largeTf = new Map<number, number>();
  /** Postings of `arena` handed out, and how many of those belong to abandoned blocks. */
  private arenaUsed = 0;
  private arenaFree = 0;
  private addCalls = 0;
  /**
   * Id → slot, built on first need (`has`, writes): a search never reads it, so loading a snapshot
   * (see `fromState`) does not fill it for every document.
   */
  private slotMap: Map<string, number> | undefined = new Map();
  /** Id per slot; undefined for a removed document. Decoded from `loadedIds` on the first write. */
  private ids: (string | undefined)[] = [];
  /** A loaded state's ids while no write has changed a slot (then every slot is live). */
  private loadedIds: PackedStrings | undefined;
  /** Tokens per slot; DEAD for a removed document. */
  private lengths: Int32Array<ArrayBufferLike> = new Int32Array(256);
  /** Interned datasource id and custom id (-1: none) per slot, for filters. */
  private sources: Int32Array<ArrayBufferLike> = new Int32Array(256);
  private tenants: Int32Array<ArrayBufferLike> = new Int32Array(256);
  private sourceNumbers = new StringInterner();
  private tenantNumbers = new StringInterner();
  private slots = 0;
  private live = 0;
  private totalLength = 0;
  /** The list over the 4-grams of the stems, kept in step with every change below (null: not kept). */
  private stemGrams: StemGrams | null;

  /**
   * `maxSlots` below the 2^24 a posting can name is for tests of the limit; `withStemGrams: false`
   * is for benchmarks that index other terms than stems (their memory without the 4-gram list).
   */
  constructor(
    private readonly parameters: Bm25Parameters = DEFAULT_BM25,
    private readonly maxSlots: number = MAX_SLOTS,
    withStemGrams = true,
  ) {
    this.stemGrams = withStemGrams ? new StemGrams(parameters) : null;
  }

  private get termNumbers(): Map<string, number> {
    if (this.termMap === undefined) {
      if (this.sortedWords !== undefined) this.words = this.sortedWords.toArray();
      this.sortedWords = undefined;
      const map = new Map<string, number>();
      for (let term = 0; term < this.termCount; term++)
        if ((this.pairCount[term] as number) >= 0) map.set(this.words[term] as string, term);
      this.termMap = map;
    }
    return this.termMap;
  }

  /** A word's term number: by the map once built, else by binary search in the loaded words. */
  private termOf(word: string): number | undefined {
    const sorted = this.sortedWords;
    if (sorted === undefined) return this.termNumbers.get(word);
    return sorted.indexOfSorted(word);
  }

  private wordOf(term: number): string {
    return this.sortedWords?.at(term) ?? (this.words[term] as string);
  }

  private readonly wordOfTerm = (term: number): string => this.wordOf(term);

  /** This index's postings as the 4-gram list reads them (the arrays as they are now). */
  private postingsView(): StemPostings {
    const { arena, largeTf, blockStart, pairCount } = this;
    return {
      arena,
      lengths: this.lengths,
      slots: this.slots,
      live: this.live,
      start: (term) => blockStart[term] as number,
      size: (term) => (term < this.termCount ? (pairCount[term] as number) : -1),
      tfOf: (term, code) => exactTf(largeTf, term, code),
      wordOf: this.wordOfTerm,
    };
  }

  private idOf(slot: number): string | undefined {
    return this.loadedIds !== undefined ? this.loadedIds.at(slot) : this.ids[slot];
  }

  /** The ids per slot, for a write: a loaded state's ids are decoded now. */
  private get idList(): (string | undefined)[] {
    if (this.loadedIds !== undefined) {
      this.ids = this.loadedIds.toArray();
      this.loadedIds = undefined;
    }
    return this.ids;
  }

  private get slotById(): Map<string, number> {
    if (this.slotMap === undefined) {
      const ids = this.idList;
      const map = new Map<string, number>();
      for (let slot = 0; slot < this.slots; slot++) if (this.lengths[slot] !== DEAD) map.set(ids[slot] as string, slot);
      this.slotMap = map;
    }
    return this.slotMap;
  }

  /** Live documents. */
  get size(): number {
    return this.live;
  }

  has(id: string): boolean {
    return this.slotById.has(id);
  }

  /** Adds a document; false (and no change) when its id is already indexed. */
  add(chunk: IndexedChunk, text: AnalysedText): boolean {
    if (this.slotById.has(chunk.id)) return false;
    const slot = this.claimSlot(chunk);
    this.lengths[slot] = text.length;
    this.totalLength += text.length;
    const terms: number[] = [];
    const tfs: number[] = [];
    for (const [word, tf] of text.counts) {
      const term = this.termFor(word);
      this.append(term, slot, tf, text.length);
      terms.push(term);
      tfs.push(tf);
    }
    this.stemGrams?.addDocument(slot, terms, tfs, this.wordOfTerm);
    return true;
  }

  /**
   * Adds a document from its raw text: the same result as `add(chunk, analyseText(text))`, about
   * twice as fast (see `termOfWord`). False (and no change) when its id is already indexed.
   */
  addText(chunk: IndexedChunk, text: string): boolean {
    if (this.slotById.has(chunk.id)) return false;
    const slot = this.claimSlot(chunk);
    // Not the slot: renumbering reuses slot numbers, a call number is never reused.
    const mark = ++this.addCalls;
    const seen: number[] = [];
    let length = 0;
    scanWords(text, (word) => {
      let term = this.termOfWord.get(word);
      if (term === undefined || (this.pairCount[term] as number) < 0) {
        term = this.termFor(stem(word));
        this.termOfWord.set(word, term);
      }
      length += 1;
      if (this.docMark[term] === mark) {
        this.docTf[term] = (this.docTf[term] as number) + 1;
      } else {
        this.docMark[term] = mark;
        this.docTf[term] = 1;
        seen.push(term);
      }
    });
    this.lengths[slot] = length;
    this.totalLength += length;
    for (const term of seen) this.append(term, slot, this.docTf[term] as number, length);
    this.stemGrams?.addDocument(
      slot,
      seen,
      seen.map((term) => this.docTf[term] as number),
      this.wordOfTerm,
    );
    return true;
  }

  /**
   * Removes a document. `text` must be the analysis of the text it was added with (its terms'
   * document frequencies go down). False when the id is not indexed.
   */
  remove(id: string, text: AnalysedText): boolean {
    const slot = this.slotById.get(id);
    if (slot === undefined) return false;
    this.slotById.delete(id);
    this.idList[slot] = undefined;
    this.totalLength -= Math.max(0, this.lengths[slot] as number);
    this.lengths[slot] = DEAD;
    this.live -= 1;
    const terms: number[] = [];
    for (const word of text.counts.keys()) {
      const term = this.termNumbers.get(word);
      if (term === undefined) continue;
      this.df[term] = Math.max(0, (this.df[term] as number) - 1);
      terms.push(term);
    }
    this.stemGrams?.removeDocument(slot, terms, this.wordOfTerm);
    if (this.slots - this.live > Math.max(1024, this.live)) this.renumber();
    return true;
  }

  /** A new slot for `chunk` (its length is set by the caller). */
  private claimSlot(chunk: IndexedChunk): number {
    if (this.slots >= this.maxSlots && this.live < this.slots) this.renumber();
    if (this.slots >= this.maxSlots) {
      throw new RagdeskError('usage_limit', `A datastore's lexical index holds at most ${this.maxSlots} chunks`, {
        details: { maxChunks: this.maxSlots },
      });
    }
    const slot = this.slots++;
    this.reserve(this.slots);
    this.idList[slot] = chunk.id;
    this.lengths[slot] = 0;
    this.sources[slot] = this.sourceNumbers.intern(chunk.datasourceId);
    this.tenants[slot] = chunk.customId === null ? -1 : this.tenantNumbers.intern(chunk.customId);
    this.slotById.set(chunk.id, slot);
    this.live += 1;
    return slot;
  }

  private termFor(word: string): number {
    let term = this.termNumbers.get(word);
    if (term === undefined) {
      term = this.newTerm(word, 0, 0);
      this.termNumbers.set(word, term);
    }
    return term;
  }

  /** A new term number whose block is `pairs` pairs at `start` of the arena (all in use). */
  private newTerm(word: string, start: number, pairs: number): number {
    const term = this.termCount++;
    if (term >= this.blockStart.length) this.reserveTerms(term + 1);
    this.words[term] = word;
    this.blockStart[term] = start;
    this.blockPairs[term] = pairs;
    this.pairCount[term] = pairs;
    this.df[term] = pairs;
    this.maxTf[term] = 0;
    this.minLength[term] = MAX_LENGTH;
    this.docMark[term] = 0;
    this.docTf[term] = 0;
    this.stemGrams?.addTerm(term, word);
    return term;
  }

  private reserveTerms(terms: number): void {
    const capacity = Math.max(terms, this.blockStart.length * 2);
    this.blockStart = grow(this.blockStart, capacity);
    this.blockPairs = grow(this.blockPairs, capacity);
    this.pairCount = grow(this.pairCount, capacity);
    this.df = grow(this.df, capacity);
    this.maxTf = grow(this.maxTf, capacity);
    this.minLength = grow(this.minLength, capacity);
    this.docMark = grow(this.docMark, capacity);
    this.docTf = grow(this.docTf, capacity);
  }

  private append(term: number, slot: number, tf: number, length: number): void {
    const size = this.pairCount[term] as number;
    if (size === this.blockPairs[term]) this.moveBlock(term, Math.max(2, size * 2));
    this.arena[(this.blockStart[term] as number) + size] = posting(slot, tf);
    if (tf >= LARGE_TF) this.largeTf.set(largeTfKey(term, slot), tf);
    this.pairCount[term] = size + 1;
    this.df[term] = (this.df[term] as number) + 1;
    if (tf > (this.maxTf[term] as number)) this.maxTf[term] = tf;
    if (length < (this.minLength[term] as number)) this.minLength[term] = length;
  }

  /** Gives a term a block of `pairs` pairs: grown in place at the arena's end, else moved there. */
  private moveBlock(term: number, pairs: number): void {
    const start = this.blockStart[term] as number;
    const old = this.blockPairs[term] as number;
    if (start + old === this.arenaUsed && old > 0) {
      this.reserveArena(pairs - old);
      // reserveArena may have compacted: the block is wherever the term says now.
      const now = this.blockStart[term] as number;
      if (now + old === this.arenaUsed) {
        this.arenaUsed += pairs - old;
        this.blockPairs[term] = pairs;
        return;
      }
    }
    this.reserveArena(pairs);
    const from = this.blockStart[term] as number;
    const to = this.arenaUsed;
    this.arena.copyWithin(to, from, from + (this.pairCount[term] as number));
    this.arenaFree += this.blockPairs[term] as number;
    this.arenaUsed += pairs;
    this.blockStart[term] = to;
    this.blockPairs[term] = pairs;
  }

  /** Room for `postings` more at the arena's end: compacts when half of it is abandoned, else grows by half. */
  private reserveArena(postings: number): void {
    if (this.arenaUsed + postings <= this.arena.length) return;
    const needed = this.arenaUsed - this.arenaFree + postings;
    if (this.arenaFree * 2 >= this.arenaUsed) {
      this.compactArena(Math.max(1024, Math.ceil(needed * 1.5)));
      return;
    }
    this.arena = grow(this.arena, Math.max(1024, Math.ceil(this.arena.length * 1.5), needed + this.arenaFree));
  }

  /** Copies every live block, in term order, into a fresh arena of `capacity` postings. */
  private compactArena(capacity: number): void {
    let used = 0;
    for (let term = 0; term < this.termCount; term++) if ((this.pairCount[term] as number) >= 0) used += this.blockPairs[term] as number;
    const arena = new Uint32Array(Math.max(capacity, used));
    let at = 0;
    for (let term = 0; term < this.termCount; term++) {
      const size = this.pairCount[term] as number;
      if (size < 0) continue;
      const start = this.blockStart[term] as number;
      arena.set(this.arena.subarray(start, start + size), at);
      this.blockStart[term] = at;
      at += this.blockPairs[term] as number;
    }
    this.arena = arena;
    this.arenaUsed = at;
    this.arenaFree = 0;
  }

  /**
   * After a build. Gives every block exactly its postings, in one arena of exactly that size:
   * growing blocks by doubling leaves up to half the arena abandoned and the arena up to a third
   * unused (at 100k chunks, 110 MB of arena for 35 MB of postings, when each was two ints); the
   * next append to a term moves its block. Also forgets the maps only writes and filters use
   * (id → slot, folded word → term, datasource and custom id → number: ~16 MB at 100k one-chunk
   * documents); they are rebuilt on first need, as after loading a snapshot, and the word map
   * refills word by word.
   */
  trim(): void {
    for (let term = 0; term < this.termCount; term++) {
      const size = this.pairCount[term] as number;
      if (size >= 0) this.blockPairs[term] = size;
    }
    this.compactArena(0);
    this.slotMap = undefined;
    this.termOfWord.clear();
    this.stemGrams?.trim(this.postingsView());
    this.sourceNumbers.forgetLookups();
    this.tenantNumbers.forgetLookups();
  }

  /** Forgets a term no document holds any more. */
  private dropTerm(term: number): void {
    const termNumbers = this.termNumbers;
    this.stemGrams?.dropTerm(term, this.words[term] as string);
    this.arenaFree += this.blockPairs[term] as number;
    this.pairCount[term] = -1;
    this.blockPairs[term] = 0;
    this.df[term] = 0;
    termNumbers.delete(this.words[term] as string);
    this.words[term] = '';
  }

  /** Changes a document's custom id (filters read it). False when the id is not indexed. */
  retag(id: string, customId: string | null): boolean {
    const slot = this.slotById.get(id);
    if (slot === undefined) return false;
    this.tenants[slot] = customId === null ? -1 : this.tenantNumbers.intern(customId);
    return true;
  }

  /** The live documents as flat arrays (see {@link LexicalIndexState}); the index is unchanged. */
  exportState(): LexicalIndexState {
    const mapping = new Int32Array(this.slots).fill(DEAD);
    let live = 0;
    for (let slot = 0; slot < this.slots; slot++) if (this.lengths[slot] !== DEAD) mapping[slot] = live++;
    const pick = (values: Int32Array) => {
      const picked = new Int32Array(live);
      for (let slot = 0; slot < this.slots; slot++) if (mapping[slot] !== DEAD) picked[mapping[slot] as number] = values[slot] as number;
      return picked;
    };
    const ids =
      this.loadedIds ?? PackedStrings.of(this.ids.filter((id, slot): id is string => slot < this.slots && this.lengths[slot] !== DEAD));
    const words: string[] = [];
    const starts: number[] = [0];
    const maxTfs: number[] = [];
    const minLengths: number[] = [];
    let total = 0;
    for (let term = 0; term < this.termCount; term++) total += Math.max(0, this.pairCount[term] as number);
    const postings = new Uint32Array(total);
    const largeTfs: number[] = [];
    const arena = this.arena;
    const exported = new Int32Array(this.termCount).fill(DEAD);
    let at = 0;
    for (const term of this.termsInWordOrder()) {
      const size = this.pairCount[term] as number;
      const begin = at;
      const start = this.blockStart[term] as number;
      let maxTf = 0;
      let minLength = MAX_LENGTH;
      for (let p = start; p < start + size; p++) {
        const code = arena[p] as number;
        const from = code >>> SLOT_SHIFT;
        const slot = mapping[from] as number;
        if (slot === DEAD) continue;
        const tf = exactTf(this.largeTf, term, code);
        postings[at] = posting(slot, tf);
        if (tf >= LARGE_TF) largeTfs.push(words.length, slot, tf);
        at += 1;
        if (tf > maxTf) maxTf = tf;
        const length = this.lengths[from] as number;
        if (length < minLength) minLength = length;
      }
      if (at === begin) continue;
      exported[term] = words.length;
      words.push(this.wordOf(term));
      starts.push(at);
      maxTfs.push(maxTf);
      minLengths.push(minLength);
    }
    return {
      ids,
      lengths: pick(this.lengths),
      sources: pick(this.sources),
      tenants: pick(this.tenants),
      sourceIds: this.sourceNumbers.packed(),
      tenantIds: this.tenantNumbers.packed(),
      words: PackedStrings.of(words),
      termStarts: Int32Array.from(starts),
      postings: postings.subarray(0, at),
      largeTfs: Int32Array.from(largeTfs),
      maxTf: Int32Array.from(maxTfs),
      minLength: Int32Array.from(minLengths),
      ...(this.stemGrams === null
        ? {}
        : { stemGrams: this.stemGrams.exportState(this.postingsView(), (term) => exported[term] as number, mapping, live) }),
    };
  }

  /** Terms holding postings, in the order of their words' bytes (see LexicalIndexState.words). */
  private termsInWordOrder(): Int32Array {
    const terms: number[] = [];
    for (let term = 0; term < this.termCount; term++) if ((this.pairCount[term] as number) > 0) terms.push(term);
    // Loaded in order and no term added since: already sorted.
    if (this.sortedWords !== undefined) return Int32Array.from(terms);
    const words = PackedStrings.of(terms.map((term) => this.words[term] as string));
    const order = Int32Array.from(terms.keys()).sort((a, b) => words.compare(a, b));
    return order.map((position) => terms[position] as number);
  }

  /**
   * An index holding exactly `state` (which it takes over: the arrays are not copied; the postings
   * become the arena as they are, one block per term). Throws when a large-tf triple names a term or
   * slot the state does not have.
   */
  static fromState(state: LexicalIndexState, parameters: Bm25Parameters = DEFAULT_BM25): LexicalIndex {
    const index = new LexicalIndex(parameters);
    const count = state.ids.length;
    if (state.lengths.length !== count || state.sources.length !== count || state.tenants.length !== count) {
      throw new Error('lexical state: per-document arrays of another length');
    }
    // Taken as they are (views on a snapshot's bytes): the first add past them grows copies.
    index.lengths = state.lengths;
    index.sources = state.sources;
    index.tenants = state.tenants;
    index.loadedIds = state.ids;
    index.slotMap = undefined;
    for (let slot = 0; slot < count; slot++) index.totalLength += state.lengths[slot] as number;
    index.slots = count;
    index.live = count;
    index.sourceNumbers = new StringInterner(state.sourceIds);
    index.tenantNumbers = new StringInterner(state.tenantIds);
    index.arena = state.postings;
    index.arenaUsed = state.postings.length;
    const { largeTfs } = state;
    for (let i = 0; i + 2 < largeTfs.length; i += 3) {
      const term = largeTfs[i] as number;
      const slot = largeTfs[i + 1] as number;
      if (!(term >= 0 && term < state.words.length && slot >= 0 && slot < count)) throw new Error('lexical state: large tf out of range');
      index.largeTf.set(largeTfKey(term, slot), largeTfs[i + 2] as number);
    }
    const terms = state.words.length;
    const { termStarts } = state;
    if (termStarts.length !== terms + 1 || state.maxTf.length !== terms || state.minLength.length !== terms) {
      throw new Error('lexical state: per-term arrays of another length');
    }
    // Every block holds exactly its postings: capacity, size and document frequency are one array, copied.
    const pairs = new Int32Array(terms);
    for (let term = 0; term < terms; term++) pairs[term] = (termStarts[term + 1] as number) - (termStarts[term] as number);
    index.termCount = terms;
    index.blockStart = termStarts.slice(0, terms);
    index.blockPairs = pairs;
    index.pairCount = pairs.slice();
    index.df = pairs.slice();
    index.maxTf = state.maxTf;
    index.minLength = state.minLength;
    index.docMark = new Int32Array(terms);
    index.docTf = new Int32Array(terms);
    if (state.words.isStrictlyAscending()) {
      index.termMap = undefined;
      index.sortedWords = state.words;
    } else {
      index.words = state.words.toArray();
      for (let term = 0; term < terms; term++) index.termNumbers.set(index.words[term] as string, term);
    }
    index.stemGrams =
      state.stemGrams === undefined
        ? StemGrams.derive(index.postingsView(), terms, parameters)
        : StemGrams.fromState(state.stemGrams, parameters, terms, count);
    return index;
  }

  /**
   * The `depth` best documents by bm25 over the 4-grams of their stems, for the 4-grams of
   * `queryStems` in at most 5% of the documents (see adapters/bm25/stem-grams.ts), best first,
   * ties by id: exactly what scoring every document's 4-grams would return.
   */
  searchStemGrams(queryStems: readonly string[], depth: number, filter?: RetrievalFilter): ScoredId[] {
    if (!(depth > 0) || this.live === 0) return [];
    const accept = this.compileFilter(filter);
    if (accept === false) return [];
    if (this.stemGrams === null) return [];
    return this.stemGrams.search(this.postingsView(), queryStems, depth, accept, (slot) => this.idOf(slot) as string);
  }

  /**
   * Chunks come in bulk until `trim` (a build from rows): the 4-gram list counts its document
   * frequencies then, in one pass (see adapters/bm25/stem-grams.ts).
   */
  deferStemGramCounts(): void {
    this.stemGrams?.deferCounts();
  }

  /** Sizes of the 4-gram list, for reports. */
  stemGramStats(): { grams: number; holders: number; bytes: number } {
    return this.stemGrams?.stats() ?? { grams: 0, holders: 0, bytes: 0 };
  }

  /** Sizes for reports: documents, distinct terms, stored postings and the bytes of the arrays. */
  stats(): { documents: number; terms: number; postings: number; bytes: number } {
    let postings = 0;
    for (let term = 0; term < this.termCount; term++) postings += Math.max(0, this.pairCount[term] as number);
    const bytes =
      this.lengths.byteLength * 3 + this.slots * 8 + this.arena.byteLength + this.blockStart.byteLength * 8 + this.largeTf.size * 32;
    let terms = 0;
    for (let term = 0; term < this.termCount; term++) if ((this.pairCount[term] as number) >= 0) terms += 1;
    return { documents: this.live, terms, postings, bytes };
  }

  /**
   * The `topK` best documents for the OR of `words` by bm25 (FTS5's formula with the idf of
   * Lucene, see `idf`), best first, ties by id: exactly what scoring every matching document
   * would return.
   *
   * MaxScore, document at a time: terms are taken in decreasing order of their best possible
   * contribution (`bound`, in practice rarest first) and their lists, sorted by slot, are merged,
   * so each document is met once with all its tfs. Once the bounds of the last terms add up to
   * less than the current k-th best score, no document they alone hold can enter the top k: those
   * lists are no longer merged, only searched (galloping) for the documents the others bring, and
   * a document is dropped as soon as what it has plus the bounds of the lists it has left cannot
   * reach the k-th score. What it has is bounded from its tfs alone (`tfBound`): its length, a
   * random access into an array of the index's size, is read only for the few documents that can
   * still enter. Term at a time, with a score per slot in such arrays (scores, marks, lengths),
   * every posting cost about three cache misses and every term a gather of all candidates' scores:
   * 1.6-1.9 ms against 0.7 for a query of six topic words at 1M chunks, same results to the bit.
   *
   * `weights[i]`, when given, multiplies word i's part of every score (1 when absent): a query
   * expanded by feedback (src/text/relevance-feedback.ts) weighs its added words below the user's.
   */
  search(words: readonly string[], topK: number, filter?: RetrievalFilter, weights?: readonly number[]): ScoredId[] {
    if (!(topK > 0) || this.live === 0) return [];
    const accept = this.compileFilter(filter);
    if (accept === false) return [];
    const query = this.queryTerms(words, weights);
    if (query.length === 0) return [];
    const merge = this.mergeOf(query, accept);
    let postings = 0;
    for (let list = 0; list < query.length; list++) postings += (merge.ends[list] as number) - (merge.at[list] as number);
    // Never more heap than documents to rank: topK may be far larger (or not an integer).
    const top = new TopScores(Math.max(1, Math.min(Math.floor(topK), postings)));
    mergeLists(merge, top);
    return top.results((slot) => this.idOf(slot) as string);
  }

  /** The query's lists, in query order, each with its weight and a cursor at its first posting. */
  private mergeOf(query: readonly QueryTerm[], accept: true | ((slot: number) => boolean)): Merge {
    const { k1, b } = this.parameters;
    // bm25's length norm k1 * (1 - b + b * length / average) as base + slope * length.
    const average = Math.max(this.totalLength / this.live, 1e-9);
    const lists = query.length;
    const merge: Merge = {
      arena: this.arena,
      largeTf: this.largeTf,
      lengths: this.lengths,
      base: k1 * (1 - b),
      slope: (k1 * b) / average,
      accept,
      terms: new Int32Array(lists),
      weights: new Float64Array(lists),
      shortest: new Float64Array(lists),
      at: new Int32Array(lists),
      ends: new Int32Array(lists),
      heads: new Int32Array(lists),
      reach: new Float64Array(lists + 1),
      tfs: new Int32Array(lists),
    };
    let remaining = 0;
    for (let list = lists - 1; list >= 0; list--) {
      const { term, idf, bound } = query[list] as QueryTerm;
      const start = this.blockStart[term] as number;
      merge.terms[list] = term;
      merge.weights[list] = idf * (k1 + 1);
      merge.shortest[list] = this.minLength[term] as number;
      merge.ends[list] = start + (this.pairCount[term] as number);
      moveTo(merge, list, start);
      remaining += bound;
      merge.reach[list] = remaining * SLACK;
    }
    return merge;
  }

  /**
   * Lucene's idf, log(1 + (N - n + 0.5) / (n + 0.5)): always positive. FTS5 uses the same
   * expression without the 1 + and floors it at 1e-6, which makes every word of a small datastore
   * (in more than half its chunks) worth nothing; on SciFact both rank alike (see design notes).
   */
  private idf(df: number): number {
    return Math.log(1 + (this.live - df + 0.5) / (df + 0.5));
  }

  private queryTerms(words: readonly string[], weights?: readonly number[]): QueryTerm[] {
    const { k1, b } = this.parameters;
    const average = Math.max(this.totalLength / this.live, 1e-9);
    const query: QueryTerm[] = [];
    for (const [position, word] of words.entries()) {
      const weight = weights?.[position] ?? 1;
      if (!(weight > 0)) continue;
      const term = this.termOf(word);
      if (term === undefined) continue;
      const df = this.df[term] as number;
      if (df === 0) {
        this.dropTerm(term);
        continue;
      }
      const size = this.pairCount[term] as number;
      if ((size - df) * 4 > size) this.compactTerm(term);
      const idf = this.idf(df) * weight;
      const maxTf = this.maxTf[term] as number;
      const bound = (idf * (k1 + 1) * maxTf) / (maxTf + k1 * (1 - b + (b * (this.minLength[term] as number)) / average));
      query.push({ term, idf, bound });
    }
    return query.sort((x, y) => y.bound - x.bound);
  }

  /** `true`: no restriction; `false`: nothing can match; else a test on a slot. */
  private compileFilter(filter: RetrievalFilter | undefined): true | false | ((slot: number) => boolean) {
    const sources = numbersOf(this.sourceNumbers, filter?.datasourceIds);
    const tenants = numbersOf(this.tenantNumbers, filter?.customIds);
    if (sources === false || tenants === false) return false;
    if (sources === true && tenants === true) return true;
    const sourceOf = this.sources;
    const tenantOf = this.tenants;
    return (slot) =>
      (sources === true || sources.has(sourceOf[slot] as number)) && (tenants === true || tenants.has(tenantOf[slot] as number));
  }

  private reserve(slots: number): void {
    if (slots <= this.lengths.length) return;
    const capacity = Math.max(slots, this.lengths.length * 2);
    this.lengths = grow(this.lengths, capacity);
    this.sources = grow(this.sources, capacity);
    this.tenants = grow(this.tenants, capacity);
  }

  /** Drops a list's dead pairs (in place, the block keeps its capacity) and tightens its bounds. */
  private compactTerm(term: number): void {
    const arena = this.arena;
    const start = this.blockStart[term] as number;
    const size = this.pairCount[term] as number;
    let kept = 0;
    let maxTf = 0;
    let minLength = MAX_LENGTH;
    for (let p = start; p < start + size; p++) {
      const code = arena[p] as number;
      const length = this.lengths[code >>> SLOT_SHIFT] as number;
      if (length === DEAD) continue;
      const tf = exactTf(this.largeTf, term, code);
      arena[start + kept] = code;
      kept += 1;
      maxTf = Math.max(maxTf, tf);
      minLength = Math.min(minLength, length);
    }
    this.pairCount[term] = kept;
    this.df[term] = kept;
    this.maxTf[term] = maxTf;
    this.minLength[term] = minLength;
  }

  /** Gives live documents consecutive slots again (order kept, so lists stay sorted). */
  private renumber(): void {
    const mapping = new Int32Array(this.slots).fill(DEAD);
    const current = this.idList;
    const ids: (string | undefined)[] = [];
    const lengths = new Int32Array(Math.max(256, this.live * 2));
    const sources = new Int32Array(lengths.length);
    const tenants = new Int32Array(lengths.length);
    for (let slot = 0; slot < this.slots; slot++) {
      if (this.lengths[slot] === DEAD) continue;
      const next = ids.length;
      mapping[slot] = next;
      ids.push(current[slot]);
      lengths[next] = this.lengths[slot] as number;
      sources[next] = this.sources[slot] as number;
      tenants[next] = this.tenants[slot] as number;
      this.slotById.set(current[slot] as string, next);
    }
    const arena = this.arena;
    const largeTf = new Map<number, number>();
    for (let term = 0; term < this.termCount; term++) {
      const size = this.pairCount[term] as number;
      if (size < 0) continue;
      const start = this.blockStart[term] as number;
      let kept = 0;
      for (let p = start; p < start + size; p++) {
        const code = arena[p] as number;
        const slot = mapping[code >>> SLOT_SHIFT] as number;
        if (slot === DEAD) continue;
        const tf = exactTf(this.largeTf, term, code);
        arena[start + kept] = posting(slot, tf);
        if (tf >= LARGE_TF) largeTf.set(largeTfKey(term, slot), tf);
        kept += 1;
      }
      if (kept === 0) {
        this.dropTerm(term);
        continue;
      }
      this.pairCount[term] = kept;
      this.df[term] = kept;
      // Blocks shrink to what they hold; compactArena below reclaims the rest.
      this.arenaFree += (this.blockPairs[term] as number) - kept;
      this.blockPairs[term] = kept;
    }
    this.compactArena(Math.ceil((this.arenaUsed - this.arenaFree) * 1.25));
    this.largeTf = largeTf;
    this.ids = ids;
    this.lengths = lengths;
    this.sources = sources;
    this.tenants = tenants;
    this.slots = ids.length;
    this.stemGrams?.renumberSlots(mapping, lengths.length);
    if (this.stemGrams?.wantsTrim) this.stemGrams.trim(this.postingsView());
  }
}

/** `true`: no restriction (absent or empty list); `false`: no listed value is known. */
function numbersOf(numbers: StringInterner, values: readonly string[] | undefined): Set<number> | boolean {
  if (values === undefined || values.length === 0) return true;
  const found = new Set<number>();
  for (const value of values) {
    const number = numbers.numberOf(value);
    if (number !== undefined) found.add(number);
  }
  return found.size === 0 ? false : found;
}

/**
 * First posting index >= `from` (counted from the block's `start`) whose slot is >= `slot`
 * (galloping, then binary search). Postings compare as their slots: the slot is the high part.
 */
function seek(arena: Uint32Array, start: number, size: number, from: number, slot: number): number {
  const first = slot * SLOT_UNIT;
  if (from >= size || (arena[start + from] as number) >= first) return from;
  let step = 1;
  let low = from;
  let high = from + step;
  while (high < size && (arena[start + high] as number) < first) {
    low = high;
    step *= 2;
    high = from + step;
  }
  if (high > size) high = size;
  // posting low < slot; answer in (low, high].
  while (low + 1 < high) {
    const middle = (low + high) >>> 1;
    if ((arena[start + middle] as number) < first) low = middle;
    else high = middle;
  }
  return high;
}

/** A list's head once it has no posting left: above every slot, so never the smallest. */
const NO_SLOT = MAX_SLOTS;

/** One query's lists being merged by slot (see `search`): plain arrays indexed by list, in query order. */
interface Merge {
  /** The index's arena: every term's postings. */
  arena: Uint32Array;
  largeTf: ReadonlyMap<number, number>;
  lengths: Int32Array;
  base: number;
  slope: number;
  accept: true | ((slot: number) => boolean);
  terms: Int32Array;
  /** idf * (k1 + 1), as bm25's numerator needs it. */
  weights: Float64Array;
  /** The length of the term's shortest document: the one that gets the most from a tf. */
  shortest: Float64Array;
  /** Arena position of the list's next posting, and the end of its block. */
  at: Int32Array;
  ends: Int32Array;
  /** Slot of the posting at `at`, or NO_SLOT: the merge compares these, not the postings. */
  heads: Int32Array;
  /** The most lists i.. can add to a score (the sum of their bounds), with SLACK; reach[lists] is 0. */
  reach: Float64Array;
  /** The tf of the document being read in each list (0: not in it). */
  tfs: Int32Array;
}

function moveTo(merge: Merge, list: number, position: number): void {
  merge.at[list] = position;
  merge.heads[list] = position < (merge.ends[list] as number) ? (merge.arena[position] as number) >>> SLOT_SHIFT : NO_SLOT;
}

/**
 * Offers the documents of the merged lists to `top`. Lists [0, essential) are merged; the rest
 * only searched for the documents those bring (see `search`), and `essential` shrinks as the k-th
 * score rises.
 */
function mergeLists(merge: Merge, top: TopScores): void {
  const { heads, reach } = merge;
  let essential = heads.length;
  for (;;) {
    while (essential > 0 && (reach[essential - 1] as number) < top.threshold) essential--;
    if (essential === 0) return;
    let slot = NO_SLOT;
    for (let list = 0; list < essential; list++) if ((heads[list] as number) < slot) slot = heads[list] as number;
    if (slot === NO_SLOT) return;
    const bound = readHeads(merge, slot, essential);
    if (readLookups(merge, slot, essential, bound, top.threshold)) scoreDocument(merge, slot, top);
  }
}

/**
 * The bound of one term's contribution to a document with `tf` of it: bm25's expression with the
 * term's shortest document's length for the document's. The same operations on a length no
 * larger, so it is never below the exact contribution, to the last bit (rounding is monotonic).
 */
function tfBound(merge: Merge, list: number, tf: number): number {
  return ((merge.weights[list] as number) * tf) / (tf + merge.base + merge.slope * (merge.shortest[list] as number));
}

/**
 * Reads the tf of `slot` in the first `lists` lists (0 where absent), moving those whose head it is
 * past it; returns the sum of their `tfBound`s, in query order.
 */
function readHeads(merge: Merge, slot: number, lists: number): number {
  const { heads, tfs } = merge;
  let bound = 0;
  for (let list = 0; list < lists; list++) {
    tfs[list] = 0;
    if (heads[list] === slot) bound += takeHead(merge, list);
  }
  return bound;
}

/** Reads the tf of the list's head posting into `tfs`, moves the list past it; returns its `tfBound`. */
function takeHead(merge: Merge, list: number): number {
  const position = merge.at[list] as number;
  const tf = exactTf(merge.largeTf, merge.terms[list] as number, merge.arena[position] as number);
  merge.tfs[list] = tf;
  moveTo(merge, list, position + 1);
  return tfBound(merge, list, tf);
}

/**
 * Reads the tf of `slot` in lists `from`.. (each searched forward), adding their `tfBound`s to
 * `bound`; false as soon as the lists left cannot lift it to `threshold`, or it ends below.
 */
function readLookups(merge: Merge, slot: number, from: number, bound: number, threshold: number): boolean {
  const { arena, at, ends, heads, tfs, reach } = merge;
  let sum = bound;
  for (let list = from; list < heads.length; list++) {
    if (sum + (reach[list] as number) < threshold) return false;
    tfs[list] = 0;
    if ((heads[list] as number) < slot) moveTo(merge, list, seek(arena, 0, ends[list] as number, at[list] as number, slot));
    if (heads[list] === slot) sum += takeHead(merge, list);
  }
  return sum * SLACK >= threshold;
}

/**
 * Scores `slot` from the tfs read, summed in query order (so always the same double), and offers
 * it. Its length is read only here: a random access into an array of the index's size, the cost
 * that dominated once every document read it (see `search`).
 */
function scoreDocument(merge: Merge, slot: number, top: TopScores): void {
  const { lengths, accept, weights, tfs, base, slope } = merge;
  const length = lengths[slot] as number;
  if (length === DEAD || (accept !== true && !accept(slot))) return;
  let score = 0;
  for (let list = 0; list < tfs.length; list++) {
    const tf = tfs[list] as number;
    if (tf !== 0) score += ((weights[list] as number) * tf) / (tf + base + slope * length);
  }
  top.offer(slot, score);
}
