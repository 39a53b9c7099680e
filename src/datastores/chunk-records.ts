import type { TextChunk } from '../ingest/chunker.js';
import type { ChunkRecord, DatasourceRecord } from '../ports/records.js';
import { chunkId } from '../util/ids.js';

/**
 * The chunk records of one datasource, before embedding. A text repeated inside the document gets
 * one id per occurrence (the hash plus how many times it was seen before), so ids stay stable
 * across re-syncs of the same text.
 */
export function chunkRecords(
  datasource: Pick<DatasourceRecord, 'id' | 'datastoreId' | 'customId'>,
  pieces: readonly TextChunk[],
): Omit<ChunkRecord, 'vector'>[] {
  const occurrences = new Map<string, number>();
  return pieces.map((piece, position) => {
    const seen = occurrences.get(piece.hash) ?? 0;
    occurrences.set(piece.hash, seen + 1);
    return {
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
    };
  });
}
