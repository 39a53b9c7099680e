import type { TextChunk } from '../ingest/chunker.js';
import type { ChunkRecord, DatasourceRecord } from '../ports/records.js';
import { chunkId } from '../util/ids.js';

/**
 * The chunk records of one datasource, before embedding. A text repeated inside the document gets
 * one id per occurrence (the hash plus how many times it was seen before), so ids stay stable
 * across re-syncs of the same text.
 */
export async function chunkRecords(
  datasource: Pick<DatasourceRecord, 'id' | 'datastoreId' | 'customId'>,
  pieces: readonly TextChunk[],
  /** Called between records; 16,000 ids (a hash each) were one 70 ms turn. */
  pause: () => Promise<void>,
): Promise<Omit<ChunkRecord, 'vector'>[]> {
  const occurrences = new Map<string, number>();
  const records: Omit<ChunkRecord, 'vector'>[] = [];
  for (const [position, piece] of pieces.entries()) {
    const seen = occurrences.get(piece.hash) ?? 0;
    occurrences.set(piece.hash, seen + 1);
    records.push({
      id: chunkId(datasource.id, piece.hash, seen),
      datastoreId: datasource.datastoreId,
      datasourceId: datasource.id,
      customId: datasource.customId,
      position,
      text: piece.text,
      tokenCount: piece.tokenCount,
      charOffset: piece.charOffset,
      hash: piece.hash,
      pageNumber: piece.pageNumber,
      metadata: {},
    });
    await pause();
  }
  return records;
}
