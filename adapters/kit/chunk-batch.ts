import { invalidRequest, RagdeskError, type FieldIssue } from '../../src/errors.js';
import type { ChunkRecord, DatasourceRecord } from '../../src/ports/records.js';

/**
 * The `replaceChunks` contract checks every Store adapter makes before writing: each chunk names
 * this datasource and its datastore, ids are unique, vectors are Float32Arrays. Throws one
 * `invalid_request` listing every problem; returns the batch's ids for the adapter's ownership check.
 */
export function assertChunkBatch(source: DatasourceRecord, incoming: readonly ChunkRecord[]): Set<string> {
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
  return seen;
}

/** `conflict`: overwriting a chunk id of another datasource would silently move it out of that one. */
export function chunkOwnedElsewhere(id: string, owner: string): RagdeskError {
  return new RagdeskError('conflict', `chunk ${JSON.stringify(id)} belongs to another datasource (${owner})`, {
    details: { kind: 'chunk', id, datasourceId: owner },
  });
}
