import hnswlib from 'hnswlib-node';
import type { IndexEntry } from '../../src/ports/index.js';
import type { HeaderContent, IndexHeader } from './persistence.js';

type Graph = InstanceType<typeof hnswlib.HierarchicalNSW>;

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

/** hnswlib labels are uint32 in the Node binding. */
const MAX_LABEL = 0xffff_ffff;

/**
 * One datastore's HNSW graph plus the maps hnswlib cannot hold: string id ↔ numeric label, label →
 * filter attributes, and per-datasource / per-custom-id label sets so a filter's match count is known
 * without scanning.
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

  private readonly labelsById = new Map<string, number>();
  private readonly infoByLabel = new Map<number, LabelInfo>();
  private readonly labelsByDatasource = new Map<string, Set<number>>();
  private readonly labelsByCustomId = new Map<string, Set<number>>();
  private nextLabel = 0;

  private constructor(
    readonly identity: CollectionIdentity,
    readonly graph: Graph,
  ) {}

  static empty(identity: CollectionIdentity, settings: GraphSettings): Collection {
    const graph = new hnswlib.HierarchicalNSW('cosine', identity.dimensions);
    graph.initIndex(settings.initialCapacity, settings.m, settings.efConstruction, 100, true);
    return new Collection(identity, graph);
  }

  /** Loads a verified binary and the header's maps; throws when the two disagree. */
  static async load(identity: CollectionIdentity, header: IndexHeader, binaryPath: string): Promise<Collection> {
    const graph = new hnswlib.HierarchicalNSW('cosine', identity.dimensions);
    await graph.readIndex(binaryPath, true);
    const collection = new Collection(identity, graph);
    const present = new Set(graph.getIdsList());
    const { ids, labels, datasources, customIds } = header.entries;
    ids.forEach((id, i) => {
      const label = labels[i] as number;
      const customIdIndex = customIds[i] as number;
      if (!present.has(label) || collection.labelsById.has(id) || collection.infoByLabel.has(label)) {
        throw new Error(`header entry ${JSON.stringify(id)} does not match the binary`);
      }
      collection.track(label, {
        id,
        datasourceId: header.datasourceIds[datasources[i] as number] as string,
        customId: customIdIndex < 0 ? null : (header.customIds[customIdIndex] as string),
      });
    });
    if (graph.getCurrentCount() < ids.length) throw new Error('binary holds fewer points than the header');
    collection.nextLabel = header.nextLabel;
    collection.sequence = header.sequence;
    collection.generation = header.generation;
    return collection;
  }

  get count(): number {
    return this.labelsById.size;
  }

  info(label: number): LabelInfo | undefined {
    return this.infoByLabel.get(label);
  }

  labelsOfDatasource(datasourceId: string): ReadonlySet<number> | undefined {
    return this.labelsByDatasource.get(datasourceId);
  }

  labelsOfCustomId(customId: string): ReadonlySet<number> | undefined {
    return this.labelsByCustomId.get(customId);
  }

  /** Entries must already be validated (dimensions, finite values). */
  upsert(entries: readonly IndexEntry[]): void {
    for (const entry of entries) {
      // The binding only takes plain arrays; convert once per vector.
      const point = Array.from(entry.vector);
      const existing = this.labelsById.get(entry.id);
      if (existing !== undefined) {
        // Same label, new vector: hnswlib updates the point and repairs its neighbourhood.
        this.graph.addPoint(point, existing, false);
        this.untrack(existing);
        this.track(existing, { id: entry.id, datasourceId: entry.datasourceId, customId: entry.customId });
        continue;
      }
      if (this.nextLabel >= MAX_LABEL) throw new Error('label space exhausted; reopen the index to rebuild it');
      const label = this.nextLabel++;
      const hasFreeSlot = this.graph.getCurrentCount() > this.labelsById.size;
      if (!hasFreeSlot && this.graph.getCurrentCount() >= this.graph.getMaxElements()) {
        this.graph.resizeIndex(Math.max(1, this.graph.getMaxElements()) * 2);
      }
      this.graph.addPoint(point, label, true);
      this.track(label, { id: entry.id, datasourceId: entry.datasourceId, customId: entry.customId });
    }
  }

  /** Unknown ids are ignored. */
  remove(ids: readonly string[]): number {
    let removed = 0;
    for (const id of ids) {
      const label = this.labelsById.get(id);
      if (label === undefined) continue;
      this.graph.markDelete(label);
      this.untrack(label);
      removed++;
    }
    return removed;
  }

  /** Everything the header records besides the binary's identity. */
  toHeaderContent(generation: number): HeaderContent {
    const datasourceIds: string[] = [];
    const customIds: string[] = [];
    const datasourceIndex = new Map<string, number>();
    const customIdIndex = new Map<string, number>();
    const intern = (table: string[], index: Map<string, number>, value: string): number => {
      let at = index.get(value);
      if (at === undefined) {
        at = table.push(value) - 1;
        index.set(value, at);
      }
      return at;
    };
    const entries = { ids: [] as string[], labels: [] as number[], datasources: [] as number[], customIds: [] as number[] };
    for (const [label, info] of this.infoByLabel) {
      entries.ids.push(info.id);
      entries.labels.push(label);
      entries.datasources.push(intern(datasourceIds, datasourceIndex, info.datasourceId));
      entries.customIds.push(info.customId === null ? -1 : intern(customIds, customIdIndex, info.customId));
    }
    return {
      ...this.identity,
      sequence: this.sequence,
      generation,
      nextLabel: this.nextLabel,
      datasourceIds,
      customIds,
      entries,
    };
  }

  private track(label: number, info: LabelInfo): void {
    this.labelsById.set(info.id, label);
    this.infoByLabel.set(label, info);
    addTo(this.labelsByDatasource, info.datasourceId, label);
    if (info.customId !== null) addTo(this.labelsByCustomId, info.customId, label);
  }

  private untrack(label: number): void {
    const info = this.infoByLabel.get(label);
    if (!info) return;
    this.labelsById.delete(info.id);
    this.infoByLabel.delete(label);
    deleteFrom(this.labelsByDatasource, info.datasourceId, label);
    if (info.customId !== null) deleteFrom(this.labelsByCustomId, info.customId, label);
  }
}

function addTo(map: Map<string, Set<number>>, key: string, label: number): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(label);
}

function deleteFrom(map: Map<string, Set<number>>, key: string, label: number): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(label);
  if (set.size === 0) map.delete(key);
}
