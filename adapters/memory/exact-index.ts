import { notFound, RagdeskError } from '../../src/errors.js';
import type {
  IndexCollection,
  IndexEntry,
  IndexQuery,
  IndexSource,
  OpenResult,
  RetrievalFilter,
  ScoredId,
  VectorIndex,
} from '../../src/ports/index.js';
import { checkEntries, checkIds, checkTopK, checkVector } from '../kit/vector-index-input.js';

/**
 * Options of {@link exactIndex}. None today: the index is exact and in memory, so there is nothing
 * to tune. The type exists so callers and presets can pass one options object like every adapter.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a public options type with no options yet, so presets can pass one object to every adapter
export interface ExactIndexOptions {}

interface StoredEntry {
  /** Unit-length copy in float64, so scores are exact cosines rather than float32 approximations. */
  unit: Float64Array;
  datasourceId: string;
  customId: string | null;
}

interface ExactCollection {
  dimensions: number;
  entries: Map<string, StoredEntry>;
}

/**
 * Brute-force `VectorIndex`: every query scores every (matching) vector. O(n) per query, so it is
 * meant as the oracle of the conformance suite and for small data sets, not for production scale.
 * `open` always rebuilds from the source (`reason: 'in_memory'`): nothing is persisted.
 */
export function exactIndex(_options: ExactIndexOptions = {}): VectorIndex {
  const collections = new Map<string, ExactCollection>();
  let closed = false;

  function live(): void {
    if (closed) throw new RagdeskError('closed', 'exact index is closed');
  }

  function collectionOf(datastoreId: string): ExactCollection {
    live();
    const collection = collections.get(datastoreId);
    if (!collection) throw notFound('index collection', datastoreId);
    return collection;
  }

  function put(collection: ExactCollection, entries: readonly IndexEntry[]): void {
    checkEntries(entries, collection.dimensions);
    for (const entry of entries) {
      collection.entries.set(entry.id, {
        unit: unitVector(entry.vector),
        datasourceId: entry.datasourceId,
        customId: entry.customId,
      });
    }
  }

  return {
    name: 'exact',
    specificationVersion: 'v1',

    async open(collection: IndexCollection, source: IndexSource): Promise<OpenResult> {
      live();
      const fresh: ExactCollection = { dimensions: collection.dimensions, entries: new Map() };
      for await (const batch of source.entries()) put(fresh, batch);
      collections.set(collection.datastoreId, fresh);
      return { rebuilt: true, reason: 'in_memory' };
    },

    async upsert(datastoreId, entries) {
      put(collectionOf(datastoreId), entries);
    },

    async remove(datastoreId, ids) {
      const collection = collectionOf(datastoreId);
      for (const id of ids) collection.entries.delete(id);
    },

    async query(datastoreId: string, query: IndexQuery): Promise<ScoredId[]> {
      const collection = collectionOf(datastoreId);
      checkVector(query.vector, collection.dimensions, 'vector');
      checkTopK(query.topK);
      const accepts = filterPredicate(query.filter);
      const target = unitVector(query.vector);
      const hits: ScoredId[] = [];
      for (const [id, entry] of collection.entries) {
        if (accepts(entry)) hits.push({ id, score: dot(target, entry.unit) });
      }
      // Ties broken by id so the oracle's order is fully deterministic.
      hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      return hits.slice(0, query.topK);
    },

    async similarities(datastoreId, vector, ids) {
      live();
      const collection = collections.get(datastoreId);
      if (!collection) return [];
      checkVector(vector, collection.dimensions, 'vector');
      checkIds(ids);
      const target = unitVector(vector);
      return ids.flatMap((id) => {
        const entry = collection.entries.get(id);
        return entry ? [{ id, score: dot(target, entry.unit) }] : [];
      });
    },

    async count(datastoreId) {
      return collectionOf(datastoreId).entries.size;
    },

    async flush(datastoreId) {
      if (datastoreId !== undefined) collectionOf(datastoreId);
      else live();
    },

    async drop(datastoreId) {
      live();
      collections.delete(datastoreId);
    },

    async close() {
      closed = true;
      collections.clear();
    },
  };
}

function filterPredicate(filter: RetrievalFilter | undefined): (entry: StoredEntry) => boolean {
  const datasources = new Set(filter?.datasourceIds ?? []);
  const customIds = new Set(filter?.customIds ?? []);
  return (entry) =>
    (datasources.size === 0 || datasources.has(entry.datasourceId)) &&
    (customIds.size === 0 || (entry.customId !== null && customIds.has(entry.customId)));
}

/** Zero vectors stay zero (score 0 against everything) instead of becoming NaN. */
function unitVector(vector: ArrayLike<number>): Float64Array {
  const unit = Float64Array.from(vector);
  let norm = 0;
  for (let i = 0; i < unit.length; i++) norm += (unit[i] as number) ** 2;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < unit.length; i++) unit[i] = (unit[i] as number) / norm;
  return unit;
}

function dot(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}
