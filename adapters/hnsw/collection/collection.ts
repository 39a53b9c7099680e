import type { IndexEntry } from '../../../src/ports/index.js';
import { PackedStrings } from '../../kit/packed-strings.js';
import type { GraphKey } from '../graph/graph-protocol.js';
import type { LabelScores, LabelTables, SearchFilter } from '../graph/graph-search.js';
import type { GraphThread } from '../graph/graph-thread.js';
import type { HeaderContent, IndexHeader } from '../files/persistence.js';
import { nextTurn } from '../../../src/util/next-turn.js';
import { fillOnThread, lendVectors, type RestoreSource } from '../files/restore.js';

/** What filters and results need to know about a label. */
export interface LabelInfo {
  id: string;
  datasourceId: string;
  customId: string | null;
}

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
 * Fetch-and-search rounds a search may take while a restore fills its graph (each round's walk
 * reaches further); ~10-30 at 100k chunks. Past it, the search waits for the store's pass.
 */
const MAX_LENDING_ROUNDS = 100;

/** hnswlib labels are uint32 in the Node binding. */
const MAX_LABEL = 0xffff_ffff;

/**
 * One datastore's HNSW graph (changed on the graph thread and searched here, graph-thread.ts) plus
 * what hnswlib cannot hold:
 * string id ↔ numeric label and each label's filter attributes (datasource, custom id), with live
 * counts per datasource and custom id so a filter's match count is known without scanning.
 *
 * Kept compact, one array slot per label rather than an object or a set per entry: at 100k
 * one-chunk documents the per-entry objects and per-datasource sets cost ~40 MB of heap and made
 * loading build 300k objects (see docs/design-notes.md).
 *
 * The label attributes are typed arrays, which the native search's filters read; a removed label
 * reads -1 as its datasource.
 *
 * Free slots: removed entries are `markDelete`d and their graph slots reused by the next new entry
 * (`allowReplaceDeleted`). Labels themselves are never reused: hnswlib fills an arbitrary deleted
 * slot, and giving it a label that still names another (deleted) slot would let a later replacement
 * unmap the live one. Labels restart from 0 on every rebuild.
 */
export class Collection {
  /** The store sequence this state reflects; -1 after a failed mutation, so it is never persisted as current. */
  sequence = 0;
  /** Generation of the last persisted header. */
  generation = 0;
  /** Changes since the last flush; > 0 means the files on disk are behind. */
  pendingChanges = 0;
  dirty = false;

  /**
   * Id → label, built on first need (a mutation): a query only maps labels to ids, and filling it
   * for 100k entries was a large part of loading a collection (see docs/design-notes.md).
   */
  private labelMap: Map<string, number> | undefined = new Map();
  private liveCount = 0;
  /**
   * Per label: its id (undefined once removed), datasource number and custom id number (-1: none).
   * After a load the ids stay in the header's packed list (`loadedIds`) until a mutation needs them
   * as strings: a query decodes the few it returns.
   */
  private idOfLabel: (string | undefined)[] = [];
  /** A loaded header's ids by label (see PersistedEntries), while no mutation needed them as strings. */
  private loadedIds: PackedStrings | undefined;
  private sourceOfLabel = labelTable(0);
  private tenantOfLabel = labelTable(0);
  private readonly datasources = new Interner();
  private readonly customIds = new Interner();
  private nextLabel = 0;
  /** While a restore's vectors are still arriving (restore.ts): how searches get theirs, and the end of the pass. */
  private filling: { vectorsOf: RestoreSource['vectorsOf']; done: Promise<void> } | undefined;

  private constructor(
    readonly identity: CollectionIdentity,
    private readonly thread: GraphThread,
    private readonly key: GraphKey,
  ) {}

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
        collection.trackHeader(header);
      } finally {
        await reading;
      }
      const { labels = new Uint32Array(0), count = 0 } =
        (await reading) ?? (await thread.request({ op: 'load', key, dimensions, path: binaryPath, live: collection.count }));
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
        const done = fillOnThread(thread, key, header, collection.count, restore.vectors).finally(() => {
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
   * The header's entries and counters, without the id → label map (built on first need) and with
   * the ids left packed (see `loadedIds`). Refused when an entry names a datasource or custom id the
   * header's tables do not have.
   */
  private trackHeader(header: IndexHeader): void {
    const { ids, datasources, customIds } = header.entries;
    const sourceCount = header.datasourceIds.length;
    const tenantCount = header.customIds.length;
    // The header's tables are distinct names (see toHeaderContent): its indexes are the numbers.
    const sourceLive = new Int32Array(sourceCount);
    const tenantLive = new Int32Array(tenantCount);
    let live = 0;
    for (let label = 0; label < datasources.length; label++) {
      const source = datasources[label] as number;
      if (source < 0) continue;
      const tenant = customIds[label] as number;
      if (source >= sourceCount || tenant < -1 || tenant >= tenantCount) throw new Error(`header entry of label ${label} is out of range`);
      sourceLive[source] = (sourceLive[source] as number) + 1;
      if (tenant >= 0) tenantLive[tenant] = (tenantLive[tenant] as number) + 1;
      live += 1;
    }
    this.reserve(header.nextLabel);
    this.sourceOfLabel.set(datasources);
    this.tenantOfLabel.set(customIds);
    this.labelMap = undefined;
    this.idOfLabel = [];
    this.loadedIds = ids;
    this.liveCount = live;
    this.datasources.adopt(header.datasourceIds, sourceLive);
    this.customIds.adopt(header.customIds, tenantLive);
    this.nextLabel = header.nextLabel;
    this.sequence = header.sequence;
    this.generation = header.generation;
  }

  /**
   * The id → label map, built from the labels when first needed. A header naming one id twice
   * (never written by this code; a hand-edited file) keeps the id's first label and deletes the others.
   */
  private get labelsById(): Map<string, number> {
    if (this.labelMap !== undefined) return this.labelMap;
    const ids = this.idList;
    const map = new Map<string, number>();
    this.labelMap = map;
    for (let label = 0; label < this.nextLabel; label++) {
      const id = ids[label];
      if (id === undefined) continue;
      if (!map.has(id)) {
        map.set(id, label);
        continue;
      }
      this.thread.post({ op: 'remove', key: this.key, labels: Uint32Array.of(label) });
      this.untrackLabel(label);
    }
    return map;
  }

  /** The ids by label as strings, for a mutation: a loaded header's are decoded now. */
  private get idList(): (string | undefined)[] {
    const loaded = this.loadedIds;
    if (loaded !== undefined) {
      const ids = new Array<string | undefined>(this.nextLabel);
      for (let label = 0; label < loaded.length; label++) if (this.isLive(label)) ids[label] = loaded.at(label);
      this.idOfLabel = ids;
      this.loadedIds = undefined;
    }
    return this.idOfLabel;
  }

  private isLive(label: number): boolean {
    if (this.loadedIds === undefined) return this.idOfLabel[label] !== undefined;
    return label < this.loadedIds.length && (this.sourceOfLabel[label] as number) >= 0;
  }

  get count(): number {
    return this.liveCount;
  }

  info(label: number): LabelInfo | undefined {
    const id = this.idOf(label);
    if (id === undefined) return undefined;
    const tenant = this.tenantOfLabel[label] as number;
    return {
      id,
      datasourceId: this.datasources.name(this.sourceOfLabel[label] as number),
      customId: tenant < 0 ? null : this.customIds.name(tenant),
    };
  }

  /** The id of a live label, else undefined. */
  idOf(label: number): string | undefined {
    if (this.loadedIds === undefined) return this.idOfLabel[label];
    return this.isLive(label) ? this.loadedIds.at(label) : undefined;
  }

  /** Numbers for filters: -1 when no live entry has that datasource / custom id. */
  datasourceNumber(datasourceId: string): number {
    return this.datasources.numberOf(datasourceId);
  }

  customIdNumber(customId: string): number {
    return this.customIds.numberOf(customId);
  }

  /** Live entries of a datasource / custom id number. */
  datasourceCount(number: number): number {
    return this.datasources.count(number);
  }

  customIdCount(number: number): number {
    return this.customIds.count(number);
  }

  /** A live label's datasource and custom id numbers (-1: none). */
  datasourceAt(label: number): number {
    return this.sourceOfLabel[label] as number;
  }

  customIdAt(label: number): number {
    return this.tenantOfLabel[label] as number;
  }

  /** Every live label, in label order. */
  *labels(): Iterable<number> {
    for (let label = 0; label < this.nextLabel; label++) if (this.isLive(label)) yield label;
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
      const existing = this.labelsById.get(entry.id);
      if (existing !== undefined) {
        this.untrack(existing);
        this.track(existing, entry);
        labels[i] = existing;
        update[i] = 1;
        return;
      }
      if (this.nextLabel >= MAX_LABEL) throw new Error('label space exhausted; reopen the index to rebuild it');
      const label = this.nextLabel++;
      this.track(label, entry);
      labels[i] = label;
    });
    this.thread.post({ op: 'add', key: this.key, labels, update, vectors });
    return entries.length;
  }

  /** Unknown ids are ignored. */
  remove(ids: readonly string[]): number {
    this.check();
    const labels: number[] = [];
    for (const id of ids) {
      const label = this.labelsById.get(id);
      if (label === undefined) continue;
      this.untrack(label);
      labels.push(label);
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

  /**
   * Labels and scores from the graph after every change made before the call. While a restore's
   * vectors arrive, a search the graph cannot finish (its walk reached points without their
   * vector) fetches those from the store, lends them to the graph and searches again; the answer
   * is the one the whole graph gives. Without a way to fetch, or when fetching stops helping, it
   * waits for the store's pass instead.
   */
  async search(
    vector: Float32Array,
    k: number,
    ef: number,
    filter: Omit<SearchFilter, 'nextLabel' | 'tables'> | null,
  ): Promise<LabelScores> {
    const tables: LabelTables = { source: this.sourceOfLabel, tenant: this.tenantOfLabel };
    // The store's pass reads a page per turn of the event loop; a caller that queries in a tight
    // loop never gives it one (bench:scale's 1,000 queries after a reopen all ran before it, at
    // twice the usual p50). Each search while it lasts lets it read one page first.
    if (this.filling !== undefined) await nextTurn();
    for (let round = 0; ; round++) {
      const found = await this.thread.search(this.key, vector, k, ef, filter && { ...filter, nextLabel: this.nextLabel, tables });
      if (found.missing === undefined) return found;
      const filling = this.filling;
      const lent =
        filling?.vectorsOf !== undefined && round < MAX_LENDING_ROUNDS
          ? await lendVectors(
              this.thread,
              this.key,
              this.identity.dimensions,
              found.missing,
              (label) => this.idOf(label),
              filling.vectorsOf,
            )
          : 0;
      if (lent === 0) await this.filled;
    }
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
    const datasourceIds: string[] = [];
    const customIds: string[] = [];
    // Interned number → position in the header's table.
    const sourceIndex = new Map<number, number>();
    const tenantIndex = new Map<number, number>();
    const ids = new Array<string>(this.nextLabel).fill('');
    const sources = new Int32Array(this.nextLabel).fill(-1);
    const tenants = new Int32Array(this.nextLabel).fill(-1);
    for (let label = 0; label < this.nextLabel; label++) {
      const id = this.idOf(label);
      if (id === undefined) continue;
      const source = this.sourceOfLabel[label] as number;
      let at = sourceIndex.get(source);
      if (at === undefined) sourceIndex.set(source, (at = datasourceIds.push(this.datasources.name(source)) - 1));
      const tenant = this.tenantOfLabel[label] as number;
      if (tenant >= 0) {
        let tenantAt = tenantIndex.get(tenant);
        if (tenantAt === undefined) tenantIndex.set(tenant, (tenantAt = customIds.push(this.customIds.name(tenant)) - 1));
        tenants[label] = tenantAt;
      }
      ids[label] = id;
      sources[label] = at;
    }
    return {
      ...this.identity,
      sequence: this.sequence,
      generation,
      nextLabel: this.nextLabel,
      datasourceIds: PackedStrings.of(datasourceIds),
      customIds: PackedStrings.of(customIds),
      entries: { ids: PackedStrings.of(ids), datasources: sources, customIds: tenants },
    };
  }

  private reserve(labels: number): void {
    if (labels <= this.sourceOfLabel.length) return;
    const capacity = Math.max(labels, this.sourceOfLabel.length * 2, 1024);
    const sources = labelTable(capacity);
    sources.set(this.sourceOfLabel);
    const tenants = labelTable(capacity);
    tenants.set(this.tenantOfLabel);
    this.sourceOfLabel = sources;
    this.tenantOfLabel = tenants;
  }

  private track(label: number, entry: Pick<IndexEntry, 'id' | 'datasourceId' | 'customId'>): void {
    this.trackNumbers(
      label,
      entry.id,
      this.datasources.intern(entry.datasourceId),
      entry.customId === null ? -1 : this.customIds.intern(entry.customId),
    );
  }

  private trackNumbers(label: number, id: string, source: number, tenant: number): void {
    this.reserve(label + 1);
    this.labelMap?.set(id, label);
    this.idList[label] = id;
    this.liveCount += 1;
    this.sourceOfLabel[label] = source;
    this.tenantOfLabel[label] = tenant;
    this.datasources.add(source, 1);
    if (tenant >= 0) this.customIds.add(tenant, 1);
  }

  private untrack(label: number): void {
    const id = this.idList[label];
    if (id === undefined) return;
    this.labelsById.delete(id);
    this.untrackLabel(label);
  }

  /** Forgets a label's entry and counts (not its map entry: see `untrack`). */
  private untrackLabel(label: number): void {
    this.idList[label] = undefined;
    this.liveCount -= 1;
    this.datasources.add(this.sourceOfLabel[label] as number, -1);
    this.sourceOfLabel[label] = -1;
    const tenant = this.tenantOfLabel[label] as number;
    if (tenant >= 0) this.customIds.add(tenant, -1);
  }
}

/** A label table the native search reads too; every label starts as removed (-1). */
function labelTable(length: number): Int32Array {
  return new Int32Array(length).fill(-1);
}

/**
 * Strings ↔ small numbers with a live count per number. A number whose count falls to 0 is
 * forgotten (its name no longer resolves to it), so removed datasources do not accumulate in the map.
 */
class Interner {
  /**
   * Built on first lookup: a loaded header brings every name (100k at one datasource per document)
   * and a query without filters never looks one up.
   */
  private numbers: Map<string, number> | undefined = new Map();
  private names: string[] = [];
  /** A loaded header's names, until a write needs them as strings (see `list`). */
  private loaded: PackedStrings | undefined;
  /** Live entries per number, for numbers below `size`. */
  private counts: Int32Array<ArrayBufferLike> = new Int32Array(16);
  private size = 0;

  /** Takes `names` (distinct) as the numbers 0..n-1, with their live counts, into an empty interner. */
  adopt(names: PackedStrings, counts: Int32Array): void {
    this.loaded = names;
    this.names = [];
    this.counts = counts;
    this.size = counts.length;
    this.numbers = undefined;
  }

  private list(): string[] {
    if (this.loaded !== undefined) {
      this.names = this.loaded.toArray();
      this.loaded = undefined;
    }
    return this.names;
  }

  private lookup(): Map<string, number> {
    if (this.numbers === undefined) {
      const numbers = new Map<string, number>();
      this.list().forEach((name, number) => {
        if ((this.counts[number] as number) > 0 && !numbers.has(name)) numbers.set(name, number);
      });
      this.numbers = numbers;
    }
    return this.numbers;
  }

  intern(name: string): number {
    const numbers = this.lookup();
    let number = numbers.get(name);
    if (number === undefined) {
      number = this.list().push(name) - 1;
      if (this.size === this.counts.length) {
        const grown = new Int32Array(Math.max(16, this.size * 2));
        grown.set(this.counts);
        this.counts = grown;
      }
      this.counts[this.size++] = 0;
      numbers.set(name, number);
    }
    return number;
  }

  numberOf(name: string): number {
    return this.lookup().get(name) ?? -1;
  }

  name(number: number): string {
    return this.loaded !== undefined ? this.loaded.at(number) : (this.names[number] as string);
  }

  count(number: number): number {
    return number < 0 || number >= this.size ? 0 : (this.counts[number] as number);
  }

  add(number: number, delta: number): void {
    const count = (this.counts[number] as number) + delta;
    this.counts[number] = count;
    if (count === 0) {
      const names = this.list();
      this.numbers?.delete(names[number] as string);
      names[number] = '';
    }
  }
}
