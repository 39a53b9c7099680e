import type { DatasourceRef } from '../ports/records.js';
import type { RetrievalStore } from '../ports/store.js';

/** The citation fields of these datasources (distinct ids), by id: the narrow read when the store has one. */
export async function readDatasourceRefs(store: RetrievalStore, ids: Iterable<string>): Promise<Map<string, DatasourceRef>> {
  const distinct = [...new Set(ids)];
  if (distinct.length === 0) return new Map();
  const refs = store.getDatasourceRefs ? await store.getDatasourceRefs(distinct) : await store.getDatasources(distinct);
  return new Map(refs.map((ref) => [ref.id, ref]));
}
