import type { ChunkRecord } from '../../src/ports/records.js';
import type { IndexedChunk, LexicalIndex } from './lexical-index.js';
import { analyseText } from './lexical-terms.js';

/** A chunk row as it was before a write, for taking its words out of the index. */
export interface PreviousChunk {
  id: string;
  text: string;
  customId: string | null;
}

/** What one committed write did to a datastore's chunks. */
export interface ChunkWrite {
  datastoreId: string;
  /** The datastore's chunk sequence after the write. */
  sequence: number;
  /** Rows of the datasource before the write (only read when the engine `tracks(datastoreId)`). */
  previous: readonly PreviousChunk[];
  /** The datasource's complete chunk set after the write (empty for a delete). */
  next: readonly Pick<ChunkRecord, 'id' | 'datasourceId' | 'customId' | 'text'>[];
}

/** Applies a write to `index` one chunk per step. */
export function* applySteps(index: LexicalIndex, write: ChunkWrite): Generator<void> {
  const previous = new Map(write.previous.map((row) => [row.id, row]));
  const next = new Set(write.next.map((chunk) => chunk.id));
  yield;
  for (const row of write.previous) {
    if (!next.has(row.id)) index.remove(row.id, analyseText(row.text));
    yield;
  }
  for (const chunk of write.next) {
    const before = previous.get(chunk.id);
    const indexed: IndexedChunk = { id: chunk.id, datasourceId: chunk.datasourceId, customId: chunk.customId };
    if (before === undefined) {
      index.addText(indexed, chunk.text);
    } else if (before.text !== chunk.text) {
      index.remove(chunk.id, analyseText(before.text));
      index.addText(indexed, chunk.text);
    } else if (before.customId !== chunk.customId) {
      index.retag(chunk.id, chunk.customId);
    }
    yield;
  }
}
