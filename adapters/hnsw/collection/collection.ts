import type { IndexEntry, ScoredId } from '../../../src/ports/index.js';
import type { GraphKey } from '../graph/graph-protocol.js';
import type { LabelScores, SearchFilter } from '../graph/graph-search.js';
import type { GraphThread } from '../graph/graph-thread.js';
import type { HeaderContent, IndexHeader } from '../files/persistence.js';
import { fillOnThread, type RestoreSource } from '../files/restore.js';
import { headerContent, labelsOfHeader } from './header-entries.js';
import { LabelTable } from './label-table.js';
import { searchWhileFilling, type Filling } from './search-while-filling.js';

export interface CollectionIdentity {
  datastoreId: string;
  model: string;
  dimensions: number;
}

export interface GraphSettings {
  m: number;
  efConstruction: number;
  initialCapacity: number;
}

/**
 * One datastore's HNSW graph, changed on the graph thread and searched there (graph-thread.ts),
 * plus what hnswlib cannot hold: the labels' ids and filter attributes (label-table.ts). Its jobs
 * beside this file: the label bookkeeping (label-table.ts, live-names.ts), the header's entries
 * in and out (header-entries.ts), and searches while a restore's vectors arrive
 * (search-while-filling.ts).
 *
 * Free slots: removed entries are `markDelete`d and their graph slots reused by the next new entry
 * (`allowReplaceDeleted`); labels are not (see label-table.ts).
 */
export class Collection {
  /** The store sequence this state reflects; -1 after a failed mutation, so it is never persisted as current. */
  sequence = 0;
  /** Generation of the last persisted header. */
  generation = 0;
  /** Changes since the last flush; > 0 means the files on disk are behind. */
  pendingChanges = 0;
  dirty = false;

  private readonly table: LabelTable;
  /** While a restore's vectors are still arriving (restore.ts). */
  private filling: Filling | undefined;

  private constructor(
    readonly identity: CollectionIdentity,
    private readonly thread: GraphThread,
    private readonly key: GraphKey,
  ) {
    // A duplicate id in a loaded header: its later labels leave the graph too.
    this.table = new LabelTable((label) => thread.post({ op: 'remove', key, labels: Uint32Array.of(label) }));
  }

  static empty(identity: CollectionIdentity, settings: GraphSettings, thread: GraphThread): Collection {
    const key = thread.newKey();
    const { dimensions } = identity;
    thread.post({
      op: 'create',
      key,
      dimensions,
      capacity: settings.initialCapacity,
      m: settings.m,
      efConstruction: settings.efConstruction,
    });
    return new Collection(identity, thread, key);
  }

  /**
   * Loads a verified binary and the header's maps; throws when the two disagree. The graph thread
   * reads the binary while the header's maps are filled here. A links-only binary comes with
   * `restore`: the live vectors it lacks, which then follow while the collection already answers
   * searches (restore.ts); `filled` says when they are all back.
   */
  static async load(
    identity: CollectionIdentity,
    header: IndexHeader,
    binaryPath: string,
    thread: GraphThread,
    restore?: RestoreSource,
  ): Promise<Collection> {
    const key = thread.newKey();
    const collection = new Collection(identity, thread, key);
    try {
      const { dimensions } = identity;
      // The header is taken in first (it may be refused): the load of a whole file needs its live count.
      const reading = restore ? thread.request({ op: 'restore', key, linksPath: binaryPath, dimensions }) : undefined;
      try {
        collection.table.adopt(labelsOfHeader(header));
        collection.sequence = header.sequence;
        collection.generation = header.generation;
      } finally {
        await reading;
      }
      const {
        labels = new Uint32Array(0),
        count = 0,
        relinked = 0,
      } = (await reading) ?? (await thread.request({ op: 'load', key, dimensions, path: binaryPath, live: collection.count }));
      collection.relinked(relinked);
      // Labels are below nextLabel (checked when the header was parsed): one byte per label.
      const present = new Uint8Array(header.nextLabel);
      for (const label of labels) if (label < present.length) present[label] = 1;
      const sources = header.entries.datasources;
      for (let label = 0; label < header.nextLabel; label++) {
        if ((sources[label] as number) >= 0 && present[label] !== 1) {
          throw new Error(`header entry ${JSON.stringify(collection.idOf(label))} is not in the binary`);
        }
      }
      if (count < collection.count) throw new Error('binary holds fewer points than the header');
      if (restore) {
        const done = fillOnThread(thread, key, header, collection.count, restore.vectors)
          .then((relinked) => collection.relinked(relinked))
          .finally(() => {
            collection.filling = undefined;
          });
        // Awaited by whoever opened the collection; marked handled here so a failure before that
        // await is not an unhandled rejection.
        done.catch(() => undefined);
        collection.filling = { vectorsOf: restore.vectorsOf, done };
      }
    } catch (error) {
      collection.release();
      throw error;
    }
    return collection;
  }

  /**
   * Points the graph thread linked again on load because no link led to them (a file written before
   * the graph was kept free of them, native/reachability.h): the file on disk still lacks those
   * links, so the collection is written again at the next flush or close.
   */
  private relinked(points: number): void {
    if (points > 0) this.dirty = true;
  }

  get count(): number {
    return this.table.count;
  }

  /** The id of a live label, else undefined. */
  idOf(label: number): string | undefined {
    return this.table.idOf(label);
  }

  /** Numbers for filters: -1 when no live entry has that datasource / custom id. */
  datasourceNumber(datasourceId: string): number {
    return this.table.datasourceNumber(datasourceId);
  }

  customIdNumber(customId: string): number {
    return this.table.customIdNumber(customId);
  }

  /** Live entries of a datasource / custom id number. */
  datasourceCount(number: number): number {
    return this.table.datasourceCount(number);
  }

  customIdCount(number: number): number {
    return this.table.customIdCount(number);
  }

  /** A live label's datasource and custom id numbers (-1: none). */
  datasourceAt(label: number): number {
    return this.table.datasourceAt(label);
  }

  customIdAt(label: number): number {
    return this.table.customIdAt(label);
  }

  /** Every live label, in label order. */
  labels(): Iterable<number> {
    return this.table.labels();
  }

  /**
   * Entries must already be validated (dimensions, finite values). The labels and attributes change
   * here; the vectors are queued for the graph thread (see graph-thread.ts).
   */
  upsert(entries: readonly IndexEntry[]): number {
    this.check();
    const { dimensions } = this.identity;
    const count = entries.length;
    // One buffer for the op, from the thread's pool (see opBuffer): labels, update flags, vectors.
    const flagsAt = count * 4;
    const vectorsAt = flagsAt + Math.ceil(count / 4) * 4;
    const buffer = this.thread.opBuffer(vectorsAt + count * dimensions * 4);
    const labels = new Uint32Array(buffer, 0, count);
    const update = new Uint8Array(buffer, flagsAt, count).fill(0);
    const vectors = new Float32Array(buffer, vectorsAt, count * dimensions);
    entries.forEach((entry, i) => {
      vectors.set(entry.vector, i * dimensions);
      const placed = this.table.place(entry);
      labels[i] = placed.label;
      if (placed.update) update[i] = 1;
    });
    this.thread.post({ op: 'add', key: this.key, labels, update, vectors });
    return entries.length;
  }

  /** Unknown ids are ignored. */
  remove(ids: readonly string[]): number {
    this.check();
    const labels: number[] = [];
    for (const id of ids) {
      const label = this.table.remove(id);
      if (label !== undefined) labels.push(label);
    }
    if (labels.length > 0) this.thread.post({ op: 'remove', key: this.key, labels: Uint32Array.from(labels) });
    return labels.length;
  }

  /** Throws when an update of this graph failed on the graph thread. */
  check(): void {
    this.thread.check(this.key);
  }

  /** Resolves once the graph thread's queue of inserts is short enough to add more (graph-thread.ts). */
  room(): Promise<void> {
    return this.thread.room();
  }

  /** Whether a restore's vectors are still arriving (searches are answered meanwhile). */
  get isFilling(): boolean {
    return this.filling !== undefined;
  }

  /**
   * Resolves once a restore's vectors are all in the graph (at once for any other collection);
   * rejects when the store and the file turned out not to match.
   */
  get filled(): Promise<void> {
    return this.filling?.done ?? Promise.resolve();
  }

  /** Labels and scores from the graph after every change made before the call (search-while-filling.ts). */
  search(vector: Float32Array, k: number, ef: number, filter: Omit<SearchFilter, 'nextLabel' | 'tables'> | null): Promise<LabelScores> {
    const graph = {
      thread: this.thread,
      key: this.key,
      dimensions: this.identity.dimensions,
      labels: this.table,
      filling: () => this.filling,
    };
    return searchWhileFilling(graph, vector, k, ef, filter);
  }

  /**
   * The cosine of `vector` with each of these live entries that the graph can answer for now
   * (GraphThread.similarities); the others are left out.
   */
  similarities(vector: Float32Array, ids: readonly string[]): ScoredId[] {
    this.check();
    const known: string[] = [];
    const labels: number[] = [];
    for (const id of ids) {
      const label = this.table.labelOf(id);
      if (label === undefined) continue;
      known.push(id);
      labels.push(label);
    }
    if (labels.length === 0) return [];
    const scores = this.thread.similarities(this.key, vector, Uint32Array.from(labels));
    const found: ScoredId[] = [];
    scores.forEach((score, i) => {
      if (!Number.isNaN(score)) found.push({ id: known[i] as string, score });
    });
    return found;
  }

  /** hnswlib's file at `fullPath`, then the links-only file at `linksPath`; `fullPath` is removed. */
  async write(fullPath: string, linksPath: string): Promise<void> {
    await this.thread.request({ op: 'write', key: this.key, fullPath, linksPath, dimensions: this.identity.dimensions });
  }

  /** Frees the graph on the graph thread; the collection is not used afterwards. */
  release(): void {
    this.thread.post({ op: 'release', key: this.key });
  }

  /** Everything the header records besides the binary's identity. */
  toHeaderContent(generation: number): HeaderContent {
    return headerContent(this.table, this.identity, this.sequence, generation);
  }
}
