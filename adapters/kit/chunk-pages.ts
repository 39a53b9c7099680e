import type { ChunkRecord } from '../../src/ports/records.js';

/** Chunks per page of `iterateChunks` when the caller names no size. */
const DEFAULT_BATCH_SIZE = 1_000;

/** One page of a datastore's chunks, and where the next one starts (null: nothing after it). */
export interface ChunkPage<Cursor> {
  chunks: ChunkRecord[];
  cursor: Cursor | null;
}

/**
 * `iterateChunks` of the SQL stores: pages of `batchSize` (at least 1, whole; the default for a
 * missing or unusable size) fetched by `page` from a keyset cursor until a short page. The cursor's
 * type is the dialect's (its primary key as a number or a `bigint` string).
 */
export async function* chunkPages<Cursor>(
  batchSize: number | undefined,
  page: (cursor: Cursor | null, size: number) => Promise<ChunkPage<Cursor>>,
): AsyncGenerator<ChunkRecord[]> {
  const size = Math.max(1, Math.floor(batchSize ?? DEFAULT_BATCH_SIZE) || DEFAULT_BATCH_SIZE);
  let cursor: Cursor | null = null;
  for (;;) {
    const next = await page(cursor, size);
    if (next.chunks.length > 0) yield next.chunks;
    if (next.chunks.length < size) return;
    cursor = next.cursor;
  }
}
