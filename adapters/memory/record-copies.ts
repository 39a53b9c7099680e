import { RagdeskError } from '../../src/errors.js';
import { assertChunkBatch, chunkOwnedElsewhere } from '../kit/chunk-batch.js';
import { patchedDatasource } from '../kit/record-patches.js';
import type { ChunkRecord, DatasourceRecord } from '../../src/ports/records.js';
import type { DatasourcePatch } from '../../src/ports/store.js';

/** Record checks and copies of the memory store: what goes in or out is never shared with callers. */

/**
 * The shared batch checks, then `conflict` when an id belongs to another datasource.
 */
export function validateChunks(
  source: DatasourceRecord,
  incoming: readonly ChunkRecord[],
  ownerOf: (id: string) => string | undefined,
): void {
  for (const id of assertChunkBatch(source, incoming)) {
    const owner = ownerOf(id);
    if (owner !== undefined && owner !== source.id) throw chunkOwnedElsewhere(id, owner);
  }
}

export function patchDatasource(record: DatasourceRecord, patch: DatasourcePatch): DatasourceRecord {
  return patchedDatasource(copyDatasource(record), patch, structuredClone);
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
