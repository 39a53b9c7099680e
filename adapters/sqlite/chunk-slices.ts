import { randomInt } from 'node:crypto';
import { notFound, RagdeskError } from '../../src/errors.js';
import type { ChunkRecord } from '../../src/ports/records.js';
import type { DatasourcePatch } from '../../src/ports/store.js';
import { assertChunkBatch, chunkOwnedElsewhere } from '../kit/chunk-batch.js';
import type { ChunkChangeDetail, ChunkQueries } from './chunk-queries.js';
import { visible } from './chunk-queries.js';
import { inTransaction, type SqliteDatabase } from './database.js';
import type { PreviousChunk } from './lexical-search.js';
import type { RecordQueries } from './record-queries.js';
import { CHUNK_COLUMNS, chunkValues, placeholders } from './row-mapping.js';
import { nextTurn } from '../../src/util/next-turn.js';
import { sliceClockNow } from '../../src/util/slice-clock.js';

/**
 * A replace touching more rows than this (new set plus old set) goes in slices; smaller ones stay
 * one transaction (a few milliseconds), which is cheaper than the turns slicing costs.
 */
export const SLICED_ABOVE_ROWS = 512;
/** A slice stops taking rows once it has run this long (SQLite work, one transaction). */
const SLICE_MS = 8;
/** Ids per ownership lookup, rows per page of the previous set. */
const IDS_PER_LOOKUP = 256;
const ROWS_PER_PAGE = 256;
/** Rows deleted per statement when a hidden set is removed. */
const ROWS_PER_DELETE = 256;

interface PreviousRow extends PreviousChunk {
  position: number;
  pk: number;
}

/**
 * `replaceChunks` for a big document, in slices of at most {@link SLICE_MS} of SQLite work with a
 * macrotask between them. One transaction for 16,000 chunks held the event loop for ~0.5 s.
 *
 * The new rows are written under a fresh random `generation` that is listed in
 * `hidden_chunk_sets`, so no read sees them. One short transaction then swaps: the new generation
 * becomes the datasource's `chunk_generation` and leaves the hidden list, the old one enters it,
 * the patch is applied and the sequence moves. Readers therefore see the old set or the new one,
 * never a mix. The old rows are deleted afterwards, in slices too. A crash at any point leaves a
 * hidden set and the visible one whole; `removeHiddenSets` (run when the store opens) deletes
 * the hidden rows. Checks that can reject the batch (batch shape, chunk ids of other datasources)
 * run before anything is written, so a rejected batch leaves the previous set as it was.
 *
 * `beforeStep` runs before every step (the store refuses after close there, and notes the write
 * for its checkpointer).
 */
export function chunkSlices(db: SqliteDatabase, records: RecordQueries, queries: ChunkQueries, beforeStep: () => void) {
  const selectOwners = db.prepare(
    `SELECT id, datasource_id FROM chunks c WHERE id IN (SELECT value FROM json_each(?)) AND datasource_id <> ? AND ${visible('c')} LIMIT 1`,
  );
  const selectPreviousPage = db.prepare(
    `SELECT position, pk, id, custom_id AS customId, CASE WHEN ? THEN text ELSE '' END AS text FROM chunks
     WHERE datasource_id = ? AND generation = ? AND (position, pk) > (?, ?) ORDER BY position, pk LIMIT ?`,
  );
  const insertChunk = db.prepare(`INSERT INTO chunks (${CHUNK_COLUMNS}, generation) VALUES (${placeholders(CHUNK_COLUMNS)}, ?)`);
  const insertHidden = db.prepare('INSERT OR IGNORE INTO hidden_chunk_sets (datasource_id, generation) VALUES (?, ?)');
  const selectHidden = db.prepare('SELECT 1 FROM hidden_chunk_sets WHERE datasource_id = ? AND generation = ?');
  const deleteHidden = db.prepare('DELETE FROM hidden_chunk_sets WHERE datasource_id = ? AND generation = ?');
  const selectHiddenSets = db.prepare('SELECT datasource_id, generation FROM hidden_chunk_sets');
  const setGeneration = db.prepare('UPDATE datasources SET chunk_generation = ? WHERE id = ?');
  const deleteRows = db.prepare(
    'DELETE FROM chunks WHERE pk IN (SELECT pk FROM chunks WHERE datasource_id = ? AND generation = ? LIMIT ?)',
  );
  const deleteAllRows = db.prepare('DELETE FROM chunks WHERE datasource_id = ? AND generation = ?');

  /** Runs `step` until it returns false, in transactions of about {@link SLICE_MS} each. */
  async function inSlices(step: () => boolean): Promise<void> {
    for (let more = true; more;) {
      await nextTurn();
      beforeStep();
      more = inTransaction(db, () => {
        const started = sliceClockNow();
        for (;;) {
          if (!step()) return false;
          if (sliceClockNow() - started >= SLICE_MS) return true;
        }
      });
    }
  }

  /** The datasource's rows in generation `generation`, read page by page (text only when `withText`). */
  async function readSet(datasourceId: string, generation: number, withText: boolean): Promise<PreviousRow[]> {
    const rows: PreviousRow[] = [];
    let cursor = { position: -Infinity, pk: -1 };
    await inSlices(() => {
      const page = selectPreviousPage.all(withText ? 1 : 0, datasourceId, generation, cursor.position, cursor.pk, ROWS_PER_PAGE);
      for (const row of page as PreviousRow[]) rows.push(row);
      const last = page[page.length - 1] as PreviousRow | undefined;
      if (last !== undefined) cursor = { position: last.position, pk: last.pk };
      return page.length === ROWS_PER_PAGE;
    });
    return rows;
  }

  /** Deletes a hidden set's rows in slices, then its entry. */
  async function removeHidden(datasourceId: string, generation: number): Promise<void> {
    await inSlices(() => {
      if (deleteRows.run(datasourceId, generation, ROWS_PER_DELETE).changes > 0) return true;
      deleteHidden.run(datasourceId, generation);
      return false;
    });
  }

  async function replace(
    datasourceId: string,
    chunks: readonly ChunkRecord[],
    patch: DatasourcePatch | undefined,
    previousRowsOf: (datastoreId: string) => boolean,
    committed: (change: ChunkChangeDetail) => void,
  ): Promise<ChunkChangeDetail> {
    beforeStep();
    const source = records.getDatasource(datasourceId);
    if (source === null) throw notFound('datasource', datasourceId);
    const ids = [...assertChunkBatch(source, chunks)];
    let checked = 0;
    await inSlices(() => {
      const batch = ids.slice(checked, checked + IDS_PER_LOOKUP);
      checked += batch.length;
      const foreign = selectOwners.get(JSON.stringify(batch), datasourceId) as { id: string; datasource_id: string } | undefined;
      if (foreign !== undefined) throw chunkOwnedElsewhere(foreign.id, foreign.datasource_id);
      return checked < ids.length;
    });

    const withText = previousRowsOf(source.datastoreId);
    const readGeneration = queries.generationOf(datasourceId);
    const readSequence = queries.chunkSequence(source.datastoreId);
    let previous: PreviousChunk[] = await readSet(datasourceId, readGeneration, withText);

    const generation = randomInt(1, 2 ** 47);
    await nextTurn();
    beforeStep();
    inTransaction(db, () => {
      if (records.getDatasource(datasourceId) === null) throw notFound('datasource', datasourceId);
      insertHidden.run(datasourceId, generation);
    });
    let change: ChunkChangeDetail;
    let replaced: number;
    try {
      let written = 0;
      if (chunks.length > 0)
        await inSlices(() => {
          const chunk = chunks[written] as ChunkRecord;
          insertChunk.run(...chunkValues(chunk), generation);
          written += 1;
          return written < chunks.length;
        });
      await nextTurn();
      beforeStep();
      [change, replaced] = inTransaction(db, () => {
        const current = records.getDatasource(datasourceId);
        if (current === null) throw notFound('datasource', datasourceId);
        if (selectHidden.get(datasourceId, generation) === undefined) {
          throw new RagdeskError('conflict', `the chunks of datasource ${datasourceId} were removed while they were written`);
        }
        const currentGeneration = queries.generationOf(datasourceId);
        // Another write reached the datastore since the old set was read: read it again, here.
        if (currentGeneration !== readGeneration || queries.chunkSequence(source.datastoreId) !== readSequence) {
          previous = queries.previousRows(datasourceId, currentGeneration, true) ?? [];
        }
        const existing = new Set(previous.map((row) => row.id));
        const next = new Set(ids);
        deleteHidden.run(datasourceId, generation);
        insertHidden.run(datasourceId, currentGeneration);
        setGeneration.run(generation, datasourceId);
        if (patch !== undefined) records.writeDatasourcePatch(current, patch);
        const detail: ChunkChangeDetail = {
          removedIds: [...existing].filter((id) => !next.has(id)),
          addedIds: ids.filter((id) => !existing.has(id)),
          sequence: queries.nextSequence(source.datastoreId),
          datastoreId: source.datastoreId,
          previous: withText ? previous : null,
        };
        return [detail, currentGeneration] as const;
      });
    } catch (error) {
      // Best effort: what is left stays hidden, and the next open removes it.
      await removeHidden(datasourceId, generation).catch(() => undefined);
      // A slice fails on its foreign key when the datasource was deleted meanwhile.
      if (!RagdeskError.isInstance(error) && datasourceGone(datasourceId)) throw notFound('datasource', datasourceId);
      throw error;
    }
    committed(change);
    // Committed: a failure here (the store closed) leaves a hidden set for the next open.
    await removeHidden(datasourceId, replaced).catch(() => undefined);
    return change;
  }

  function datasourceGone(datasourceId: string): boolean {
    try {
      beforeStep();
      return records.getDatasource(datasourceId) === null;
    } catch {
      return false;
    }
  }

  /** Deletes every hidden set (what writes cut short by a crash or a close left): at open. */
  function removeHiddenSets(): void {
    for (const row of selectHiddenSets.all() as { datasource_id: string; generation: number }[]) {
      inTransaction(db, () => {
        deleteAllRows.run(row.datasource_id, row.generation);
        deleteHidden.run(row.datasource_id, row.generation);
      });
    }
  }

  return { replace, removeHiddenSets };
}
