import { RagdeskError } from '../../src/errors.js';
import type { ScoredId } from '../../src/ports/records.js';
import type { TextSearchLists, TextSearchRequest } from '../../src/ports/store.js';
import { nextTurn } from '../../src/util/next-turn.js';
import { sliceClockNow } from '../../src/util/slice-clock.js';
import { applySteps, type ChunkWrite } from './chunk-writes.js';
import { DEFAULT_BM25, LexicalIndex, type IndexedChunk, type LexicalIndexState } from './lexical-index.js';
import { decodeSnapshot, encodeSnapshot, isCurrentFormat } from './lexical-snapshot.js';
import { queryStems } from './lexical-terms.js';

/** Options of a store's lexical search. */
export interface LexicalSearchOptions {
  /** Query words considered (the first ones, stopwords excluded). Default 64. */
  maxQueryTerms: number;
  /** bm25 term-frequency saturation. Default 1.2. */
  k1: number;
  /** bm25 length normalisation, 0..1. Default 0.75. */
  b: number;
}

export const DEFAULT_LEXICAL_OPTIONS: LexicalSearchOptions = { maxQueryTerms: 64, ...DEFAULT_BM25 };

/** A chunk as a build reads it from the store. */
export interface ChunkText extends IndexedChunk {
  text: string;
}

/** A saved snapshot of a datastore's index and the chunk sequence it was taken at. */
interface SavedSnapshot {
  sequence: number;
  data: Uint8Array;
}

/**
 * What the engine needs of the store that keeps the chunks: their sequence, their rows page by
 * page, and a place for one snapshot per datastore. Every call is synchronous, so that a read and
 * the indexing of what it read happen with no write in between.
 */
export interface LexicalSource {
  /** Named in the error a search gets once the store is closed ("the SQLite store"). */
  readonly name: string;
  /** The datastore's chunk sequence; undefined when the datastore is unknown. */
  sequenceOf(datastoreId: string): number | undefined;
  /**
   * A reader of the datastore's visible chunks: each call gives the next `limit` rows of a stable
   * order (fewer at the end). Writes may land between calls (see `build`).
   */
  pages(datastoreId: string, limit: number): () => readonly ChunkText[];
  readSnapshot(datastoreId: string): SavedSnapshot | undefined;
  deleteSnapshot(datastoreId: string): void;
  /** Saves `encode()` unless the datastore's sequence is no longer `sequence`, atomically. */
  saveSnapshot(datastoreId: string, sequence: number, encode: () => Uint8Array): void;
}

/** Rows read per step of a build; a step is one synchronous read plus indexing, see `build`. */
const BUILD_PAGE_ROWS = 64;
/** A build yields to the event loop once a turn has indexed for this long. */
const BUILD_SLICE_MS = 10;
/**
 * A write touching at most this many chunks (old and new) reaches the index in the call that
 * committed it; a bigger one is queued and applied in slices (see `apply`). Tokenizing is the
 * cost, ~0.1 ms per chunk: 16,000 chunks of a big document took 1.3-2 s in one go.
 */
const SYNC_APPLY_CHUNKS = 128;

interface Entry {
  index: LexicalIndex;
  /** The store's chunk sequence the index reflects. */
  sequence: number;
  state: 'building' | 'ready' | 'stale';
  built: Promise<void>;
  /** Differs from the saved snapshot (built from rows, or changed since loaded). */
  unsaved: boolean;
  /** Committed writes not yet in `index` (oldest first); `sequence` already counts them. */
  queue: ChunkWrite[];
  /** Applies `queue` in slices; null when it is empty. Searches wait for it. */
  draining: Promise<void> | null;
}

/**
 * bm25 search over chunk text, from one in-memory {@link LexicalIndex} per datastore.
 *
 * An index is built on the first search of its datastore, from the chunk rows, in steps that yield
 * to the event loop; then every write of the store updates it in the same synchronous call as
 * its commit, so a search never sees a state the store did not have. Each write also brings the
 * datastore's chunk sequence: a sequence that jumped means another connection wrote (a second
 * process, or a second store on the same file), and the index is rebuilt on the next search.
 * Writes to a datastore that has not been searched yet cost nothing here.
 *
 * Closing saves each changed index as a snapshot tagged with its chunk sequence; the first search
 * after reopening loads it instead of reading and tokenizing every row, unless the sequence moved
 * since (then the snapshot is dropped and the rows are read). A process that ends without closing
 * the store only costs that rebuild.
 */
export function lexicalIndexes(source: LexicalSource, options: LexicalSearchOptions) {
  const entries = new Map<string, Entry>();
  const bm25 = { k1: options.k1, b: options.b };
  let closed = false;

  /**
   * Reads the datastore's rows page by page. A page is read and indexed in one synchronous step,
   * and writes of this store reach the index between steps (see `apply`): a row indexed from a
   * page is skipped if a write already added it, and a row a write removes is either gone from
   * later pages or removed from the index by that write.
   */
  async function build(datastoreId: string, entry: Entry): Promise<void> {
    const building = () => !closed && entries.get(datastoreId) === entry && entry.state === 'building';
    // Read at once, before any yield: writes from now on are applied to `entry` (see `apply`).
    entry.sequence = source.sequenceOf(datastoreId) ?? 0;
    if (await loadSnapshot(datastoreId, entry, building)) return;
    entry.index.deferStemGramCounts();
    const nextPage = source.pages(datastoreId, BUILD_PAGE_ROWS);
    for (;;) {
      const started = sliceClockNow();
      do {
        if (!building()) return;
        const rows = nextPage();
        for (const row of rows) {
          if (entry.index.has(row.id)) continue;
          entry.index.addText({ id: row.id, datasourceId: row.datasourceId, customId: row.customId }, row.text);
        }
        if (rows.length < BUILD_PAGE_ROWS) {
          entry.index.trim();
          entry.state = 'ready';
          entry.unsaved = true;
          return;
        }
      } while (sliceClockNow() - started < BUILD_SLICE_MS);
      await nextTurn();
    }
  }

  /**
   * Takes the saved snapshot when it was saved at `entry.sequence` (the current one); a snapshot of
   * an older sequence is deleted, it can never become current again. Reading the row, decoding its
   * header and building the index are three steps with a yield before each (tens of ms each at
   * 100k chunks): the other loads of a first query (the vector index's file, whose read runs on
   * libuv's pool once started) get the thread in between. A write that lands meanwhile moves
   * `entry.sequence` past the snapshot, which is then dropped for the rows, as a stale one is.
   * True when the entry is done (loaded, or no longer wanted).
   */
  async function loadSnapshot(datastoreId: string, entry: Entry, building: () => boolean): Promise<boolean> {
    const sequence = entry.sequence;
    const current = () => building() && entry.sequence === sequence;
    await nextTurn();
    if (!building()) return true;
    const saved = current() ? source.readSnapshot(datastoreId) : undefined;
    if (saved === undefined) return false;
    let state: LexicalIndexState | null = null;
    if (saved.sequence === sequence) {
      await nextTurn();
      state = current() ? decodeSnapshot(saved.data) : null;
      if (state !== null) await nextTurn();
    }
    if (state === null || !current()) {
      if (!closed) source.deleteSnapshot(datastoreId);
      return !building();
    }
    entry.index = LexicalIndex.fromState(state, bm25);
    entry.state = 'ready';
    entry.unsaved = !isCurrentFormat(saved.data);
    return true;
  }

  /** Saves changed, current indexes; a failure (read-only file, lock) only costs a rebuild later. */
  function saveSnapshots(): void {
    for (const [datastoreId, entry] of entries) {
      // A queue not yet applied: the index is behind the sequence it would be saved under.
      if (entry.state !== 'ready' || !entry.unsaved || entry.queue.length > 0) continue;
      try {
        source.saveSnapshot(datastoreId, entry.sequence, () => encodeSnapshot(entry.index.exportState()));
      } catch {
        // Nothing to undo: the next open reads the rows instead.
      }
    }
  }

  function startBuild(datastoreId: string): Entry {
    const entry: Entry = {
      index: new LexicalIndex(bm25),
      sequence: 0,
      state: 'building',
      built: Promise.resolve(),
      unsaved: false,
      queue: [],
      draining: null,
    };
    entries.set(datastoreId, entry);
    entry.built = build(datastoreId, entry).catch((error: unknown) => {
      if (entries.get(datastoreId) === entry) entries.delete(datastoreId);
      throw error;
    });
    return entry;
  }

  /** The datastore's index, current with the store; null when the datastore is unknown. */
  async function current(datastoreId: string): Promise<LexicalIndex | null> {
    for (let round = 0; ; round++) {
      // A search that waited for a load while the store closed: the connection is gone.
      if (closed) throw new RagdeskError('closed', `the ${source.name} is closed`);
      const sequence = source.sequenceOf(datastoreId);
      if (sequence === undefined) return null;
      let entry = entries.get(datastoreId);
      // A big write is being applied: answer from the index once it holds it, not half of it.
      if (entry?.draining) {
        await entry.draining;
        round -= 1;
        continue;
      }
      if (entry?.state === 'ready' && entry.sequence === sequence) return entry.index;
      // Rebuilt once already and another connection wrote again meanwhile: a process that keeps
      // writing must not starve this search, which answers from the fresh build.
      if (entry !== undefined && entry.state !== 'building' && round >= 2) return entry.index;
      if (entry?.state !== 'building') entry = startBuild(datastoreId);
      await entry.built;
    }
  }

  /**
   * Brings a tracked datastore's index up to a write the store just committed: at once when the
   * write is small and nothing is queued, else through the queue, applied in slices of
   * {@link BUILD_SLICE_MS} while searches of the datastore wait (they never see half a write).
   */
  function apply(write: ChunkWrite): void {
    const entry = entries.get(write.datastoreId);
    if (entry === undefined || entry.state === 'stale') return;
    if (write.sequence !== entry.sequence + 1) {
      // Another connection wrote in between: the index no longer knows what the rows are.
      entry.state = 'stale';
      entry.queue = [];
      return;
    }
    entry.sequence = write.sequence;
    entry.unsaved = true;
    if (entry.draining === null && write.previous.length + write.next.length <= SYNC_APPLY_CHUNKS) {
      try {
        for (const step of applySteps(entry.index, write)) void step;
      } catch {
        // The write is committed; the index cannot take it (its slot limit): the next search
        // rebuilds from the rows and reports why, as after a failed drain below.
        entry.state = 'stale';
      }
      return;
    }
    entry.queue.push(write);
    entry.draining ??= drain(write.datastoreId, entry);
  }

  async function drain(datastoreId: string, entry: Entry): Promise<void> {
    const wanted = () => !closed && entries.get(datastoreId) === entry && entry.state !== 'stale';
    try {
      for (let write = entry.queue[0]; write !== undefined; write = entry.queue[0]) {
        const steps = applySteps(entry.index, write);
        for (let done = false; !done;) {
          await nextTurn();
          if (!wanted()) return;
          const started = sliceClockNow();
          do done = steps.next().done === true;
          while (!done && sliceClockNow() - started < BUILD_SLICE_MS);
        }
        entry.queue.shift();
      }
    } catch {
      // Half applied: the next search rebuilds from the rows.
      entry.state = 'stale';
    } finally {
      if (!wanted()) entry.queue = [];
      entry.draining = null;
    }
  }

  return {
    async search(request: TextSearchRequest): Promise<ScoredId[]> {
      const topK = Math.floor(request.topK);
      if (!(topK > 0)) return [];
      const words = queryStems(request.query, options.maxQueryTerms);
      if (words.length === 0) return [];
      const index = await current(request.datastoreId);
      return index === null ? [] : index.search(words, topK, request.filter);
    },

    /** `search`'s list and the list over the 4-grams of the stems, from the same index state. */
    async searchLists(request: TextSearchRequest): Promise<TextSearchLists> {
      const topK = Math.floor(request.topK);
      if (!(topK > 0)) return { words: [], stemGrams: [] };
      const words = queryStems(request.query, options.maxQueryTerms);
      if (words.length === 0) return { words: [], stemGrams: [] };
      const index = await current(request.datastoreId);
      if (index === null) return { words: [], stemGrams: [] };
      return { words: index.search(words, topK, request.filter), stemGrams: index.searchStemGrams(words, topK, request.filter) };
    },

    /** Builds or loads the datastore's index now rather than on its first search. */
    async prepare(datastoreId: string): Promise<void> {
      await current(datastoreId);
    },

    /** Whether writes to this datastore must report their previous rows (it has an index). */
    tracks(datastoreId: string): boolean {
      const state = entries.get(datastoreId)?.state;
      return state === 'ready' || state === 'building';
    },

    apply,

    /** Forgets a deleted datastore's index (a build in progress stops at its next step). */
    drop(datastoreId: string): void {
      const entry = entries.get(datastoreId);
      if (entry !== undefined) entry.state = 'stale';
      entries.delete(datastoreId);
    },

    /** Sizes of the built indexes, for benchmarks and diagnostics. */
    stats(): { datastores: number; documents: number; terms: number; postings: number; bytes: number } {
      const total = { datastores: 0, documents: 0, terms: 0, postings: 0, bytes: 0 };
      for (const entry of entries.values()) {
        const stats = entry.index.stats();
        total.datastores += 1;
        total.documents += stats.documents;
        total.terms += stats.terms;
        total.postings += stats.postings;
        total.bytes += stats.bytes;
      }
      return total;
    },

    /** Saves snapshots (see above) and forgets every index; call before closing the store. */
    close(): void {
      if (closed) return;
      closed = true;
      saveSnapshots();
      entries.clear();
    },
  };
}
