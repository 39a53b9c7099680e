import { createHash, randomUUID } from 'node:crypto';

/**
 * Random id for records users create (datastores, datasources, agents). Copied into a flat string:
 * Node builds `randomUUID()` by concatenation, and every index that keeps the id (one per
 * datasource at one chunk per document) would otherwise hold a 32-byte concatenation node beside
 * the characters.
 */
export function newId(): string {
  return Buffer.from(randomUUID(), 'latin1').toString('latin1');
}

/**
 * Content-addressed chunk id: the same text at the same repeat count within a datasource keeps its
 * id across re-syncs, so only chunks whose text changed reach the vector index again.
 */
export function chunkId(datasourceId: string, textHash: string, occurrence: number): string {
  // The first 16 bytes as hex: the same 32 characters as slicing the full hex digest, but a flat
  // string. A slice keeps its 64-character parent alive, and the indexes hold every id (at 100k
  // chunks, 11 MB of sliced ids instead of 5).
  return createHash('sha256').update(`${datasourceId}\u0000${textHash}\u0000${occurrence}`).digest().toString('hex', 0, 16);
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function nowIso(): string {
  return new Date().toISOString();
}
