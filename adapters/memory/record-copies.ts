import { invalidRequest, RagdeskError, type FieldIssue } from '../../src/errors.js';
import type { ChunkRecord, DatasourceRecord } from '../../src/ports/records.js';
import type { DatasourcePatch } from '../../src/ports/store.js';

/** Record checks and copies of the memory store: what goes in or out is never shared with callers. */

/** Keys a datasource patch may not change (DatasourcePatch omits them; JavaScript callers may not). */
const DATASOURCE_FIXED_KEYS = new Set(['id', 'datastoreId', 'type', 'createdAt']);

/**
 * Throws `invalid_request` listing every chunk that names another datasource or datastore, repeats
 * an id, or has no Float32Array vector; `conflict` when an id belongs to another datasource
 * (overwriting it would silently move the chunk out of that datasource).
 */
export function validateChunks(
  source: DatasourceRecord,
  incoming: readonly ChunkRecord[],
  ownerOf: (id: string) => string | undefined,
): void {
  const issues: FieldIssue[] = [];
  const seen = new Set<string>();
  incoming.forEach((chunk, index) => {
    if (chunk.datasourceId !== source.id) {
      issues.push({ path: `chunks.${index}.datasourceId`, message: `must be ${source.id}` });
    }
    if (chunk.datastoreId !== source.datastoreId) {
      issues.push({ path: `chunks.${index}.datastoreId`, message: `must be ${source.datastoreId}` });
    }
    if (seen.has(chunk.id)) issues.push({ path: `chunks.${index}.id`, message: 'duplicate chunk id' });
    seen.add(chunk.id);
    if (!(chunk.vector instanceof Float32Array)) {
      issues.push({ path: `chunks.${index}.vector`, message: 'must be a Float32Array' });
    }
  });
  if (issues.length > 0) throw invalidRequest('chunks do not belong to this datasource', issues);
  for (const chunk of incoming) {
    const owner = ownerOf(chunk.id);
    if (owner !== undefined && owner !== source.id) {
      throw new RagdeskError('conflict', `chunk ${JSON.stringify(chunk.id)} belongs to another datasource`, {
        details: { kind: 'chunk', id: chunk.id, datasourceId: owner },
      });
    }
  }
}

export function patchDatasource(record: DatasourceRecord, patch: DatasourcePatch): DatasourceRecord {
  const next = copyDatasource(record);
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined || DATASOURCE_FIXED_KEYS.has(key) || !(key in next)) continue;
    Object.assign(next, { [key]: structuredClone(value) });
  }
  return next;
}

export function copyDatasource(record: DatasourceRecord): DatasourceRecord {
  return { ...record, config: structuredClone(record.config), metadata: { ...record.metadata } };
}

export function copyChunk(chunk: ChunkRecord): ChunkRecord {
  // slice() of a Float32Array copies bytes, so the copy is bit-exact (NaN payloads included).
  return { ...chunk, metadata: { ...chunk.metadata }, vector: chunk.vector.slice() };
}

/** Oldest `createdAt` first; Array.prototype.sort is stable, so ties keep insertion order. */
export function oldestFirst<T extends { createdAt: string }>(records: T[]): T[] {
  return records.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
}

export function conflict(kind: string, id: string): RagdeskError {
  return new RagdeskError('conflict', `${kind} ${JSON.stringify(id)} already exists`, {
    details: { kind, id },
  });
}
