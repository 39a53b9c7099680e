import { notFound } from '../../src/errors.js';
import { assertChunkBatch, chunkOwnedElsewhere } from '../kit/chunk-batch.js';
import type { ChunkHit, ChunkRecord, DatasourceRecord, DatasourceRef } from '../../src/ports/records.js';
import type { ChunkChange, ChunkStore, DatasourcePatch } from '../../src/ports/store.js';
import type { Implementation } from '../kit/guarded-methods.js';
import type { IndexVector } from '../../src/ports/vector-index.js';
import { inTransaction, type SqliteDatabase } from './database.js';
import { HitCache } from './hit-cache.js';
import { idListReader } from './id-list-reader.js';
import type { PreviousChunk } from './lexical-search.js';
import type { RecordQueries } from './record-queries.js';
import {
  CHUNK_COLUMNS,
  chunkValues,
  DATASOURCE_REF_COLUMNS,
  parseMetadata,
  datasourceRefFromValues,
  placeholders,
  toChunkRecord,
  vectorFromBlob,
  type ChunkRow,
} from './row-mapping.js';

/** Positions of the columns in {@link CHUNK_COLUMNS}, for statements read in raw (array) mode. */
const AT = Object.fromEntries(CHUNK_COLUMNS.split(',').map((column, i) => [column.trim(), i])) as Record<keyof ChunkRow, number>;
const NO_VECTOR = new Float32Array(0);

/** A chunk from a raw row of {@link CHUNK_COLUMNS} (the vector column may be absent: `vectors` false). */
function chunkFromValues(values: readonly unknown[], vectors: boolean): ChunkRecord {
  return {
    id: values[AT.id] as string,
    datastoreId: values[AT.datastore_id] as string,
    datasourceId: values[AT.datasource_id] as string,
    customId: values[AT.custom_id] as string | null,
    position: values[AT.position] as number,
    text: values[AT.text] as string,
    tokenCount: values[AT.token_count] as number,
    charOffset: values[AT.char_offset] as number,
    hash: values[AT.hash] as string,
    pageNumber: values[AT.page_number] as number | null,
    metadata: parseMetadata(values[AT.metadata] as string),
    vector: vectors ? vectorFromBlob(values[AT.vector] as Buffer) : NO_VECTOR,
  };
}

/** A search hit's columns, in the order {@link hitFromValues} reads them. */
const HIT_COLUMNS = 'id, datasource_id, custom_id, page_number, metadata, text';

/** A hit from a raw row of {@link HIT_COLUMNS}. */
function hitFromValues(values: readonly unknown[]): ChunkHit {
  return {
    id: values[0] as string,
    datasourceId: values[1] as string,
    customId: values[2] as string | null,
    text: values[5] as string,
    pageNumber: values[3] as number | null,
    metadata: parseMetadata(values[4] as string),
  };
}

/**
 * Bytes `[at, at + length)` of a page's blob as a vector: a view when aligned (the page's blob is
 * the driver's own allocation, read by nobody else), else a copy.
 */
function vectorIn(blob: Buffer, at: number, length: number): Float32Array {
  if ((blob.byteOffset + at) % 4 === 0 && length % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset + at, length / 4);
  return vectorFromBlob(blob.subarray(at, at + length));
}

/** Rows of (id, vector). */
function vectorRows(rows: readonly unknown[][]): IndexVector[] {
  return rows.map((row) => ({ id: row[0] as string, vector: vectorFromBlob(row[1] as Buffer) }));
}

/** One row of (ids as a JSON array, vector lengths as a JSON array, the vectors back to back). */
function concatenatedVectors(row: readonly unknown[]): IndexVector[] {
  const [ids, lengths, blob] = row as [string, string, Buffer | null];
  const chunks = (JSON.parse(ids) as string[]).map((id) => ({ id, vector: NO_VECTOR }));
  let at = 0;
  (JSON.parse(lengths) as number[]).forEach((length, i) => {
    (chunks[i] as IndexVector).vector = vectorIn(blob as Buffer, at, length);
    at += length;
  });
  return chunks;
}

/** Upsert keeps the row (and its pk, hence its full-text rowid) when the id exists. */
const UPSERT_UPDATES = CHUNK_COLUMNS.split(',')
  .slice(1)
  .map((column) => `${column.trim()} = excluded.${column.trim()}`)
  .join(', ');

/**
 * A chunk change plus what the lexical index needs to follow it: the datastore, and the rows the
 * datasource had before (null when the caller did not ask, see `previousRowsOf`).
 */
export interface ChunkChangeDetail extends ChunkChange {
  datastoreId: string;
  previous: PreviousChunk[] | null;
}

/**
 * Chunk rows: the atomic replace, reads, and the lookups the vector index and embedder need.
 * `hitCacheBytes`: the budget of the cache of search hits' rows (hit-cache.ts); 0 reads every hit.
 */
export function chunkQueries(db: SqliteDatabase, records: RecordQueries, { hitCacheBytes = 0 }: { hitCacheBytes?: number } = {}) {
  // A datasource's visible rows are those of its `chunk_generation` (never a hidden one).
  const selectGeneration = db.prepare('SELECT chunk_generation AS generation FROM datasources WHERE id = ?');
  const selectIds = db.prepare('SELECT id FROM chunks WHERE datasource_id = ? AND generation = ?');
  const selectPrevious = db.prepare('SELECT id, text, custom_id FROM chunks WHERE datasource_id = ? AND generation = ?');
  const selectOwners = db.prepare(
    `SELECT id, datasource_id FROM chunks c WHERE id IN (SELECT value FROM json_each(?)) AND ${visible('c')}`,
  );
  const deleteChunk = db.prepare('DELETE FROM chunks WHERE id = ? AND generation = ?');
  // The WHERE turns an id owned by another datasource into "no change", caught below.
  const upsertChunk = db.prepare(
    `INSERT INTO chunks (${CHUNK_COLUMNS}, generation) VALUES (${placeholders(CHUNK_COLUMNS)}, ?)
     ON CONFLICT (id, generation) DO UPDATE SET ${UPSERT_UPDATES} WHERE chunks.datasource_id = excluded.datasource_id`,
  );
  const deleteDatasourceRow = db.prepare('DELETE FROM datasources WHERE id = ?');
  const bumpSequence = db.prepare('UPDATE datastores SET chunk_sequence = chunk_sequence + 1 WHERE id = ? RETURNING chunk_sequence');
  const selectSequence = db.prepare('SELECT chunk_sequence FROM datastores WHERE id = ?');
  // The vector is the last column: the same list without it keeps every other position.
  if (AT.vector !== CHUNK_COLUMNS.split(',').length - 1) throw new Error('CHUNK_COLUMNS must end with vector');
  const textColumns = CHUNK_COLUMNS.slice(0, CHUNK_COLUMNS.lastIndexOf(','));
  const byIds = {
    vectors: idListReader(db, `SELECT ${CHUNK_COLUMNS} FROM chunks c WHERE ${visible('c')} AND id IN`),
    texts: idListReader(db, `SELECT ${textColumns} FROM chunks c WHERE ${visible('c')} AND id IN`),
  };
  // What a hit needs of its chunk (HIT_COLUMNS), then its datasource's citation columns.
  const hitsByIds = idListReader(
    db,
    `SELECT ${qualified('c', HIT_COLUMNS)}, ${qualified('d', DATASOURCE_REF_COLUMNS)}
     FROM chunks c JOIN datasources d ON d.id = c.datasource_id WHERE c.generation = d.chunk_generation AND c.id IN`,
  );
  const refAt = HIT_COLUMNS.split(',').length;
  const hitCache = hitCacheBytes > 0 ? new HitCache(db, hitCacheBytes) : undefined;
  const selectByDatasource = db.prepare(
    `SELECT ${CHUNK_COLUMNS} FROM chunks
     WHERE datasource_id = ? AND generation = (SELECT chunk_generation FROM datasources WHERE id = ?) ORDER BY position, pk`,
  );
  // Keyset pages over the (datastore_id, hash) index, whose entries end with the pk: a stable
  // total order without OFFSET and without a third index on chunks.
  const selectPage = db.prepare(
    `SELECT ${CHUNK_COLUMNS}, pk FROM chunks c
     WHERE datastore_id = ? AND (hash, pk) > (?, ?) AND ${visible('c')} ORDER BY hash, pk LIMIT ?`,
  );
  // All rows less the hidden ones: hidden sets are few and short-lived, a test per row is not.
  const countByDatastore = db.prepare(
    `SELECT (SELECT count(*) FROM chunks WHERE datastore_id = ?) - (SELECT count(*) FROM hidden_chunk_sets h
       JOIN chunks c ON c.datasource_id = h.datasource_id AND c.generation = h.generation WHERE c.datastore_id = ?) AS count`,
  );
  // Ids and vectors only, a page per statement run: the narrow chunks_scope index finds the page's
  // rows in pk order (a scan of chunks_datastore_hash visits rows in random order, 2-3x slower at
  // 20k chunks), then one row comes back for the page: the ids and vector lengths as JSON arrays
  // and the vectors concatenated into one blob. A row per chunk cost a Buffer per vector, twice
  // the wall time (GC included). group_concat reads a blob as text in the database's encoding,
  // unchanged only in UTF-8: any other encoding keeps a row per chunk.
  // chunks_scope has no generation column: while a hidden set exists (a big write in progress) the
  // page is found through the table with the visibility test, else through the narrow index alone.
  const pageRows = (hidden: boolean) => `SELECT id, vector, pk FROM chunks WHERE pk IN (
    SELECT pk FROM chunks c INDEXED BY chunks_scope WHERE datastore_id = ? AND pk > ?${hidden ? ` AND ${visible('c')}` : ''} ORDER BY pk LIMIT ?
  )`;
  const utf8 = (db.prepare('PRAGMA encoding').get() as { encoding: string }).encoding.toUpperCase() === 'UTF-8';
  const vectorPageStatement = (hidden: boolean) =>
    db
      .prepare(
        utf8
          ? `SELECT json_group_array(id), json_group_array(length(vector)), CAST(group_concat(vector, x'') AS BLOB), max(pk)
           FROM (${pageRows(hidden)})`
          : `${pageRows(hidden)} ORDER BY pk`,
      )
      .raw(true);
  const selectVectorPage = { narrow: vectorPageStatement(false), visible: vectorPageStatement(true) };
  // The ids drive the join (CROSS JOIN keeps that order): left to itself the planner scanned the
  // datastore's rows by the datastore index, 170 ms a call at 100k chunks instead of ~2 ms.
  const vectorsOfIdsRows = `SELECT c.id AS id, c.vector AS vector FROM json_each(?) j CROSS JOIN chunks c ON c.id = j.value
    WHERE c.datastore_id = ? AND ${visible('c')}`;
  const selectVectorsOfIds = db
    .prepare(
      utf8
        ? `SELECT json_group_array(id), json_group_array(length(vector)), CAST(group_concat(vector, x'') AS BLOB) FROM (${vectorsOfIdsRows})`
        : vectorsOfIdsRows,
    )
    .raw(true);
  const anyHiddenSet = db.prepare('SELECT EXISTS (SELECT 1 FROM hidden_chunk_sets) AS hidden');
  const selectVectors = db.prepare(
    `SELECT hash, vector FROM chunks c
     WHERE datastore_id = ? AND hash IN (SELECT value FROM json_each(?)) AND length(vector) = ? AND ${visible('c')}`,
  );

  /** The generation holding the datasource's visible rows. */
  function generationOf(datasourceId: string): number {
    return (selectGeneration.get(datasourceId) as { generation: number } | undefined)?.generation ?? 0;
  }

  function nextSequence(datastoreId: string): number {
    const row = bumpSequence.get(datastoreId) as { chunk_sequence: number } | undefined;
    if (row === undefined) throw notFound('datastore', datastoreId);
    return row.chunk_sequence;
  }

  /** Throws before anything is written, so a rejected batch leaves the previous set intact. */
  function checkOwnership(source: DatasourceRecord, chunks: readonly ChunkRecord[]): void {
    const ids = assertChunkBatch(source, chunks);
    const owners = selectOwners.all(JSON.stringify([...ids])) as { id: string; datasource_id: string }[];
    const foreign = owners.find((row) => row.datasource_id !== source.id);
    if (foreign !== undefined) throw chunkOwnedElsewhere(foreign.id, foreign.datasource_id);
  }

  /** Inserts or overwrites the rows at `generation`; an id owned by another datasource fails the call. */
  function writeChunks(chunks: readonly ChunkRecord[], generation: number): void {
    for (const chunk of chunks) {
      if (upsertChunk.run(...chunkValues(chunk), generation).changes === 0) {
        throw chunkOwnedElsewhere(chunk.id, 'another datasource');
      }
    }
  }

  /** The datasource's rows with their text when `wanted` (reading text costs), else null. */
  function previousRows(datasourceId: string, generation: number, wanted: boolean): PreviousChunk[] | null {
    if (!wanted) return null;
    return (selectPrevious.all(datasourceId, generation) as { id: string; text: string; custom_id: string | null }[]).map((row) => ({
      id: row.id,
      text: row.text,
      customId: row.custom_id,
    }));
  }

  const countRows = db.prepare(
    'SELECT count(*) AS count FROM chunks WHERE datasource_id = ? AND generation = (SELECT chunk_generation FROM datasources WHERE id = ?)',
  );

  function chunkSequence(datastoreId: string): number {
    const row = selectSequence.get(datastoreId) as { chunk_sequence: number } | undefined;
    return row?.chunk_sequence ?? 0;
  }

  /** The `ChunkStore` reads these queries implement whole. */
  const methods = {
    /** One statement in raw mode (see SqliteStatement.raw); without vectors when `vectors` is false. */
    getChunks(ids: readonly string[], { vectors = true }: { vectors?: boolean } = {}): ChunkRecord[] {
      if (ids.length === 0) return [];
      const rows = (vectors ? byIds.vectors : byIds.texts)([...new Set(ids)]);
      const byId = new Map(rows.map((row) => [row[AT.id] as string, row]));
      return ids.flatMap((id) => {
        const row = byId.get(id);
        return row === undefined ? [] : [chunkFromValues(row, vectors)];
      });
    },

    /** The hits' chunks (the fields of a `ChunkHit`) and the citation fields of their datasources, in one statement. */
    getChunkHits(ids: readonly string[]): { chunks: ChunkHit[]; datasources: DatasourceRef[] } {
      if (ids.length === 0) return { chunks: [], datasources: [] };
      const byId = new Map<string, readonly unknown[]>();
      let missing = [...new Set(ids)];
      if (hitCache !== undefined) {
        hitCache.check();
        missing = missing.filter((id) => {
          const row = hitCache.get(id);
          if (row !== undefined) byId.set(id, row);
          return row === undefined;
        });
      }
      if (missing.length > 0) {
        for (const row of hitsByIds(missing)) {
          byId.set(row[0] as string, row);
          hitCache?.put(row[0] as string, row);
        }
      }
      const datasources = new Map<string, DatasourceRef>();
      for (const row of byId.values()) {
        const id = row[refAt] as string;
        if (!datasources.has(id)) datasources.set(id, datasourceRefFromValues(row.slice(refAt)));
      }
      const chunks = ids.flatMap((id) => {
        const row = byId.get(id);
        return row === undefined ? [] : [hitFromValues(row)];
      });
      return { chunks, datasources: [...datasources.values()] };
    },

    listChunks(datasourceId: string): ChunkRecord[] {
      return (selectByDatasource.all(datasourceId, datasourceId) as ChunkRow[]).map(toChunkRecord);
    },

    /** Ids and vectors of these chunks of the datastore, in one statement. */
    getChunkVectors(datastoreId: string, ids: readonly string[]): IndexVector[] {
      if (ids.length === 0) return [];
      const rows = selectVectorsOfIds.all(JSON.stringify(ids), datastoreId) as unknown[][];
      return utf8 ? concatenatedVectors(rows[0] as unknown[]) : vectorRows(rows);
    },

    countChunks(datastoreId: string): number {
      return (countByDatastore.get(datastoreId, datastoreId) as { count: number }).count;
    },

    findVectorsByHash(datastoreId: string, hashes: readonly string[], dimensions: number): Map<string, Float32Array> {
      const found = new Map<string, Float32Array>();
      if (hashes.length === 0 || !Number.isInteger(dimensions) || dimensions <= 0) return found;
      const rows = selectVectors.all(datastoreId, JSON.stringify([...new Set(hashes)]), dimensions * 4);
      for (const row of rows as { hash: string; vector: Buffer }[]) {
        if (!found.has(row.hash)) found.set(row.hash, vectorFromBlob(row.vector));
      }
      return found;
    },

    chunkSequence,
  } satisfies Implementation<
    Pick<
      ChunkStore,
      'getChunks' | 'getChunkHits' | 'listChunks' | 'getChunkVectors' | 'countChunks' | 'findVectorsByHash' | 'chunkSequence'
    >
  >;

  return {
    methods,
    chunkSequence,
    generationOf,
    nextSequence,
    previousRows,
    /** Visible rows of the datasource. */
    countRows: (datasourceId: string): number => (countRows.get(datasourceId, datasourceId) as { count: number }).count,

    /** `previousRowsOf(datastoreId)`: whether to return the rows as they were before. */
    replaceChunks(
      datasourceId: string,
      chunks: readonly ChunkRecord[],
      patch: DatasourcePatch | undefined,
      previousRowsOf: (datastoreId: string) => boolean = () => false,
    ): ChunkChangeDetail {
      return inTransaction(db, () => {
        const source = records.getDatasource(datasourceId);
        if (source === null) throw notFound('datasource', datasourceId);
        checkOwnership(source, chunks);
        const generation = generationOf(datasourceId);
        const previous = previousRows(datasourceId, generation, previousRowsOf(source.datastoreId));
        const existing = new Set(
          previous?.map((row) => row.id) ?? (selectIds.all(datasourceId, generation) as { id: string }[]).map((row) => row.id),
        );
        const next = new Set(chunks.map((chunk) => chunk.id));
        const removedIds = [...existing].filter((id) => !next.has(id));
        const addedIds = [...next].filter((id) => !existing.has(id));
        // Delete first: a removed row's text leaves the full-text index before new rows enter it.
        for (const id of removedIds) deleteChunk.run(id, generation);
        writeChunks(chunks, generation);
        if (patch !== undefined) records.writeDatasourcePatch(source, patch);
        return { removedIds, addedIds, sequence: nextSequence(source.datastoreId), datastoreId: source.datastoreId, previous };
      });
    },

    /**
     * A new datasource with its first chunks, its row inserted in its final state: the same rows
     * and status events as `createDatasource` then `replaceChunks` with `patch`, in five fewer
     * statements (the reads of the row, its generation and its chunks, the update, the read-back).
     */
    createDocument(
      datasource: DatasourceRecord,
      chunks: readonly ChunkRecord[],
      patch: DatasourcePatch,
      previousRowsOf: (datastoreId: string) => boolean = () => false,
    ): ChunkChangeDetail {
      return inTransaction(db, () => {
        const source = records.createPatchedDatasource(datasource, patch);
        checkOwnership(source, chunks);
        // A new row's chunk_generation is the column's default.
        writeChunks(chunks, 0);
        return {
          removedIds: [],
          addedIds: [...new Set(chunks.map((chunk) => chunk.id))],
          sequence: nextSequence(source.datastoreId),
          datastoreId: source.datastoreId,
          previous: previousRowsOf(source.datastoreId) ? [] : null,
        };
      });
    },

    /** Chunks cascade with the row; the sequence still moves even when there were none. */
    deleteDatasource(id: string, previousRowsOf: (datastoreId: string) => boolean = () => false): ChunkChangeDetail | null {
      return inTransaction(db, () => {
        const source = records.getDatasource(id);
        if (source === null) return null;
        const generation = generationOf(id);
        const previous = previousRows(id, generation, previousRowsOf(source.datastoreId));
        const removedIds = previous?.map((row) => row.id) ?? (selectIds.all(id, generation) as { id: string }[]).map((row) => row.id);
        deleteDatasourceRow.run(id);
        return { removedIds, addedIds: [], sequence: nextSequence(source.datastoreId), datastoreId: source.datastoreId, previous };
      });
    },

    /** One page after the cursor; `cursor` is the last row of the previous page. */
    page(datastoreId: string, cursor: { hash: string; pk: number } | null, size: number) {
      const rows = selectPage.all(datastoreId, cursor?.hash ?? '', cursor?.pk ?? -1, size) as (ChunkRow & { pk: number })[];
      const last = rows[rows.length - 1];
      return {
        chunks: rows.map(toChunkRecord),
        cursor: last === undefined ? null : { hash: last.hash, pk: last.pk },
      };
    },

    /** One page of ids and vectors after the pk `cursor` (-1 for the first). */
    vectorPage(datastoreId: string, cursor: number | null, size: number): { chunks: IndexVector[]; cursor: number | null } {
      const hidden = (anyHiddenSet.get() as { hidden: number }).hidden === 1;
      const rows = (hidden ? selectVectorPage.visible : selectVectorPage.narrow).all(datastoreId, cursor ?? -1, size) as unknown[][];
      if (!utf8) {
        const last = rows[rows.length - 1];
        return { chunks: vectorRows(rows), cursor: last === undefined ? null : (last[2] as number) };
      }
      return { chunks: concatenatedVectors(rows[0] as unknown[]), cursor: (rows[0] as unknown[])[3] as number | null };
    },
  };
}

/**
 * SQL true for a row of `alias` that is not in a hidden set (a generation being written, or one
 * replaced and not yet deleted; see chunk-slices.ts). A probe of a table that is almost always
 * empty.
 */
export function visible(alias: string): string {
  return `NOT EXISTS (SELECT 1 FROM hidden_chunk_sets h WHERE h.datasource_id = ${alias}.datasource_id AND h.generation = ${alias}.generation)`;
}

export type ChunkQueries = ReturnType<typeof chunkQueries>;

/** `a, b` as `t.a, t.b`. */
function qualified(table: string, columns: string): string {
  return columns
    .split(',')
    .map((column) => `${table}.${column.trim()}`)
    .join(', ');
}
