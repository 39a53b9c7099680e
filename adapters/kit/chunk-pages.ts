import type { ChunkRecord } from '../../src/ports/records.js';

/** Chunks per page of `iterateChunks` when the caller names no size. */
const DEFAULT_BATCH_SIZE = 1_000;

/** One page of a datastore's chunks (or of narrower rows of them), and where the next one starts (null: nothing after it). */
export interface ChunkPage<Cursor, Item = ChunkRecord> {
  chunks: Item[];
  cursor: Cursor | null;
}

/**
 * `iterateChunks` of the SQL stores: pages of `batchSize` (at least 1, whole; `defaultSize` for a
 * missing or unusable size) fetched by `page` from a keyset cursor until a short page. The cursor's
 * type is the dialect's (its primary key as a number or a `bigint` string).
 */
export async function* chunkPages<Cursor, Item = ChunkRecord>(
  batchSize: number | undefined,
  page: (cursor: Cursor | null, size: number) => Promise<ChunkPage<Cursor, Item>>,
  defaultSize = DEFAULT_BATCH_SIZE,
): AsyncGenerator<Item[]> {
  const size = Math.max(1, Math.floor(batchSize ?? defaultSize) || defaultSize);
  let cursor: Cursor | null = null;
  for (;;) {
    const next = await page(cursor, size);
    if (next.chunks.length > 0) yield next.chunks;
    if (next.chunks.length < size) return;
    cursor = next.cursor;
  }
}
