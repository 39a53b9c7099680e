import type { IndexEntry } from '../../../src/ports/index.js';
import type { PackedStrings } from '../../kit/packed-strings.js';
import type { LabelTables } from '../graph/graph-search.js';
import { LiveNames } from './live-names.js';
import { PackedIdIndex } from './packed-id-index.js';

/** A persisted table as header-entries.ts checked it: distinct names, live counts per name. */
export interface LoadedLabels {
  nextLabel: number;
  /** Ids by label ('' for removed labels). */
  ids: PackedStrings;
  /** Per label: datasource number, -1 for a removed label. */
  datasources: Int32Array;
  /** Per label: custom id number, -1 for none. */
  customIds: Int32Array;
  datasourceNames: PackedStrings;
  customIdNames: PackedStrings;
  datasourceLive: Int32Array;
  customIdLive: Int32Array;
  live: number;
}

/** hnswlib labels are uint32 in the Node binding. */
const MAX_LABEL = 0xffff_ffff;

/**
 * The collection's labels: string id ↔ numeric label and each label's filter attributes
 * (datasource, custom id), with live counts per datasource and custom id so a filter's match count
 * is known without scanning.
 *
 * Kept compact, one array slot per label rather than an object or a set per entry: at 100k
 * one-chunk documents the per-entry objects and per-datasource sets cost ~40 MB of heap and made
 * loading build 300k objects (docs/decisions/017-memory-at-100k.md). The attributes are typed arrays, which the
 * native search's filters read; a removed label reads -1 as its datasource.
 *
 * Labels are never reused: hnswlib fills an arbitrary deleted slot, and giving it a label that
 * still names another (deleted) slot would let a later replacement unmap the live one. Labels
 * restart from 0 on every rebuild.
 */
export class LabelTable {
  /**
   * Id → label, built on first need (a mutation): a query only maps labels to ids, and filling it
   * for 100k entries was a large part of loading a collection (docs/decisions/012-packed-string-lists.md).
   */
  private labelMap: Map<string, number> | undefined = new Map();
  private liveCount = 0;
  /**
   * Per label: its id (undefined once removed). After a load the ids stay in the header's packed
   * list (`loadedIds`) until a mutation needs them as strings: a query decodes the few it returns.
   */
  private idOfLabel: (string | undefined)[] = [];
  private loadedIds: PackedStrings | undefined;
  /** Id → label over `loadedIds` for `labelOf`, while they are not decoded. */
  private loadedIndex: PackedIdIndex | undefined;
  private sourceOfLabel = labelTable(0);
  private tenantOfLabel = labelTable(0);
  private readonly datasources = new LiveNames();
  private readonly customIds = new LiveNames();
  private next = 0;

  /** @param dropDuplicate called for a label whose id an earlier label already has (see `labelsById`). */
  constructor(private readonly dropDuplicate: (label: number) => void) {}

  /** Takes a loaded table in place of an empty one; the id → label map is built on first need. */
  adopt(loaded: LoadedLabels): void {
    this.reserve(loaded.nextLabel);
    this.sourceOfLabel.set(loaded.datasources);
    this.tenantOfLabel.set(loaded.customIds);
    this.labelMap = undefined;
    this.idOfLabel = [];
    this.loadedIds = loaded.ids;
    this.loadedIndex = undefined;
    this.liveCount = loaded.live;
    this.datasources.adopt(loaded.datasourceNames, loaded.datasourceLive);
    this.customIds.adopt(loaded.customIdNames, loaded.customIdLive);
    this.next = loaded.nextLabel;
  }

  /** Every label below it was handed out (live or removed). */
  get nextLabel(): number {
    return this.next;
  }

  get count(): number {
    return this.liveCount;
  }

  /** The attribute tables, as the native search reads them (replaced when they grow). */
  get tables(): LabelTables {
    return { source: this.sourceOfLabel, tenant: this.tenantOfLabel };
  }

  /** The id of a live label, else undefined. */
  idOf(label: number): string | undefined {
    if (this.loadedIds === undefined) return this.idOfLabel[label];
    return this.isLive(label) ? this.loadedIds.at(label) : undefined;
  }

  /**
   * The label of a live id, else undefined. After a load, until a mutation decodes the ids, from an
   * index over the packed ids (packed-id-index.ts), built on the first call.
   */
  labelOf(id: string): number | undefined {
    const loaded = this.loadedIds;
    if (this.labelMap !== undefined || loaded === undefined) return this.labelsById.get(id);
    this.loadedIndex ??= new PackedIdIndex(loaded, (label) => this.isLive(label));
    const label = this.loadedIndex.labelOf(id);
    return label !== undefined && this.isLive(label) ? label : undefined;
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

  datasourceName(number: number): string {
    return this.datasources.name(number);
  }

  customIdName(number: number): string {
    return this.customIds.name(number);
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
    for (let label = 0; label < this.next; label++) if (this.isLive(label)) yield label;
  }

  /**
   * The label an upserted entry goes to, its attributes now the entry's: the label its id already
   * has (`update`), else a new one.
   */
  place(entry: Pick<IndexEntry, 'id' | 'datasourceId' | 'customId'>): { label: number; update: boolean } {
    const existing = this.labelsById.get(entry.id);
    if (existing !== undefined) {
      this.untrack(existing);
      this.track(existing, entry);
      return { label: existing, update: true };
    }
    if (this.next >= MAX_LABEL) throw new Error('label space exhausted; reopen the index to rebuild it');
    const label = this.next++;
    this.track(label, entry);
    return { label, update: false };
  }

  /** The label the id had, now removed; undefined for an unknown id. */
  remove(id: string): number | undefined {
    const label = this.labelsById.get(id);
    if (label !== undefined) this.untrack(label);
    return label;
  }

  private isLive(label: number): boolean {
    if (this.loadedIds === undefined) return this.idOfLabel[label] !== undefined;
    return label < this.loadedIds.length && (this.sourceOfLabel[label] as number) >= 0;
  }

  /**
   * The id → label map, built from the labels when first needed. A header naming one id twice
   * (never written by this code; a hand-edited file) keeps the id's first label and drops the others.
   */
  private get labelsById(): Map<string, number> {
    if (this.labelMap !== undefined) return this.labelMap;
    const ids = this.idList;
    const map = new Map<string, number>();
    this.labelMap = map;
    for (let label = 0; label < this.next; label++) {
      const id = ids[label];
      if (id === undefined) continue;
      if (!map.has(id)) {
        map.set(id, label);
        continue;
      }
      this.dropDuplicate(label);
      this.untrackLabel(label);
    }
    return map;
  }

  /** The ids by label as strings, for a mutation: a loaded header's are decoded now. */
  private get idList(): (string | undefined)[] {
    const loaded = this.loadedIds;
    if (loaded !== undefined) {
      const ids = new Array<string | undefined>(this.next);
      for (let label = 0; label < loaded.length; label++) if (this.isLive(label)) ids[label] = loaded.at(label);
      this.idOfLabel = ids;
      this.loadedIds = undefined;
      this.loadedIndex = undefined;
    }
    return this.idOfLabel;
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
    const source = this.datasources.intern(entry.datasourceId);
    const tenant = entry.customId === null ? -1 : this.customIds.intern(entry.customId);
    this.reserve(label + 1);
    this.labelMap?.set(entry.id, label);
    this.idList[label] = entry.id;
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
