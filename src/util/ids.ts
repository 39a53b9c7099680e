import { createHash, randomUUID } from 'node:crypto';

/** Random id for records users create (datastores, datasources, agents). */
export function newId(): string {
  return randomUUID();
}

/**
 * Content-addressed chunk id: the same text at the same repeat count within a datasource keeps its
 * id across re-syncs, so only chunks whose text changed reach the vector index again.
 */
export function chunkId(datasourceId: string, textHash: string, occurrence: number): string {
  return createHash('sha256').update(`${datasourceId}\u0000${textHash}\u0000${occurrence}`).digest('hex').slice(0, 32);
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function nowIso(): string {
  return new Date().toISOString();
}
