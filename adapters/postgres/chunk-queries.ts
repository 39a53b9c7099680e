import type pg from 'pg';
import { notFound } from '../../src/errors.js';
import { assertChunkBatch, chunkOwnedElsewhere } from '../kit/chunk-batch.js';
import { patchedDatasource } from '../kit/record-patches.js';
import type { ChunkRecord, DatasourceRecord } from '../../src/ports/records.js';
import type { ChunkChange, ChunkStore, DatasourcePatch } from '../../src/ports/store.js';
import type { Implementation } from '../kit/guarded-methods.js';
import { inTransaction, selectRow, selectRows, type Queryable } from './connection.js';
import { eventTime } from './record-queries.js';
import {
  assignments,
  CHUNK_COLUMNS,
  columnList,
  DATASOURCE_COLUMNS,
  datasourceValues,
  placeholders,
  toChunkRecord,
  toDatasourceRecord,
  vectorLiteral,
  type ChunkRow,
  type DatasourceRow,
} from './row-mapping.js';

const CHUNK_SELECT = columnList(CHUNK_COLUMNS);
/** Rows per INSERT statement: bounds the size of one statement's parameters (~2 MB at 384 dims). */
const WRITE_BATCH = 500;

/** Chunk rows: the atomic replace, reads, and the lookups the vector index and embedder need. */
export function chunkQueries(pool: pg.Pool, s: string) {
  // Columns that may differ between two writes of one chunk id. A row whose values are all equal is
  // left alone: an UPDATE would write a new row version and new entries in the GIN and HNSW
  // indexes although nothing changed (a re-sync rewrites every unchanged chunk of a document).
  // The vector is compared as text so that 0 and -0 (equal as floats) still count as a change.
  const mutable = ['custom_id', 'position', 'token_count', 'char_offset', 'page_number', 'hash', 'metadata', 'text'];
  const upsert = `
    INSERT INTO ${s}.chunks AS c (${CHUNK_SELECT})
    SELECT u.id, $2, $3, u.custom_id, u.position, u.token_count, u.char_offset, u.page_number, u.hash,
           u.metadata, u.text, u.embedding::real[]
    FROM unnest($1::text[], $4::text[], $5::integer[], $6::integer[], $7::integer[], $8::integer[], $9::text[],
                $10::text[], $11::text[], $12::text[])
      AS u(id, custom_id, position, token_count, char_offset, page_number, hash, metadata, text, embedding)
    ON CONFLICT (id) DO UPDATE SET ${[...mutable, 'embedding'].map((column) => `${column} = excluded.${column}`).join(', ')}
    WHERE c.datasource_id = excluded.datasource_id
      AND (${mutable.map((column) => `c.${column}`).join(', ')}, c.embedding::text)
          IS DISTINCT FROM (${mutable.map((column) => `excluded.${column}`).join(', ')}, excluded.embedding::text)`;

  /**
   * Locks the datastore row of a datasource for the rest of the transaction. Every chunk write of
   * a datastore takes this lock first (then the datasource's), so writes from several instances
   * are serialised in one order per datastore. (Should a delete of the datastore still deadlock
   * with it, Postgres aborts one side and `inTransaction` runs it again.)
   */
  async function lockDatastoreOf(client: Queryable, datasourceId: string): Promise<string | null> {
    const row = await selectRow<{ id: string }>(
      client,
      `SELECT ds.id FROM ${s}.datastores ds JOIN ${s}.datasources d ON d.datastore_id = ds.id
       WHERE d.id = $1 FOR UPDATE OF ds`,
      [datasourceId],
    );
    return row?.id ?? null;
  }

  /**
   * The datasource, with its datastore row and its own row locked in one round trip. Rows are
   * locked in the FOR UPDATE OF order (datastore first: checked on PostgreSQL 15 with a second
   * session); were it ever otherwise, a deadlock with a datastore delete is retried.
   */
  async function lockDatasource(client: Queryable, datasourceId: string): Promise<DatasourceRecord | null> {
    const row = await selectRow<DatasourceRow>(
      client,
      `SELECT ${columnList(DATASOURCE_COLUMNS, 'd')} FROM ${s}.datastores ds JOIN ${s}.datasources d ON d.datastore_id = ds.id
       WHERE d.id = $1 FOR UPDATE OF ds, d`,
      [datasourceId],
    );
    return row === undefined ? null : toDatasourceRecord(row);
  }

  /**
   * One statement for the end of a chunk write: the datasource patch (and its status event, when
   * the status changes) and the datastore's new sequence and chunk count. Returns the sequence.
   */
  async function finish(
    client: Queryable,
    source: DatasourceRecord,
    patch: DatasourcePatch | undefined,
    countDelta: number,
  ): Promise<number> {
    const values: unknown[] = [source.datastoreId, countDelta];
    const steps: string[] = [];
    if (patch !== undefined) {
      const next = patchedDatasource(source, patch);
      const fields = datasourceValues(next).slice(2);
      values.push(...fields, source.id);
      steps.push(
        `patched AS (UPDATE ${s}.datasources SET ${assignments(DATASOURCE_COLUMNS, 2, 3)} WHERE id = $${values.length} RETURNING id)`,
      );
      if (next.status !== source.status) {
        const first = values.length + 1;
        values.push(source.id, source.status, next.status, eventTime(patch), patch.error ?? null);
        steps.push(
          `event AS (INSERT INTO ${s}.status_events (datasource_id, from_status, to_status, at, message)
           VALUES (${placeholders(5, first)}) RETURNING pk)`,
        );
      }
    }
    const row = await selectRow<{ chunk_sequence: string }>(
      client,
      `${steps.length > 0 ? `WITH ${steps.join(', ')} ` : ''}
       UPDATE ${s}.datastores SET chunk_sequence = chunk_sequence + 1, chunk_count = chunk_count + $2
       WHERE id = $1 RETURNING chunk_sequence`,
      values,
    );
    if (row === undefined) throw notFound('datastore', source.datastoreId);
    return Number(row.chunk_sequence);
  }

  async function writeChunks(client: Queryable, datastoreId: string, datasourceId: string, chunks: readonly ChunkRecord[]): Promise<void> {
    for (let start = 0; start < chunks.length; start += WRITE_BATCH) {
      const batch = chunks.slice(start, start + WRITE_BATCH);
      await client.query(upsert, [
        batch.map((chunk) => chunk.id),
        datastoreId,
        datasourceId,
        batch.map((chunk) => chunk.customId),
        batch.map((chunk) => chunk.position),
        batch.map((chunk) => chunk.tokenCount),
        batch.map((chunk) => chunk.charOffset),
        batch.map((chunk) => chunk.pageNumber),
        batch.map((chunk) => chunk.hash),
        batch.map((chunk) => JSON.stringify(chunk.metadata ?? {})),
        batch.map((chunk) => chunk.text),
        batch.map((chunk) => vectorLiteral(chunk.vector)),
      ]);
    }
  }

  /** The `ChunkStore` reads these queries implement whole. */
  const methods = {
    async getChunks(ids: readonly string[]): Promise<ChunkRecord[]> {
      if (ids.length === 0) return [];
      const rows = await selectRows<ChunkRow>(pool, `SELECT ${CHUNK_SELECT} FROM ${s}.chunks WHERE id = ANY($1::text[])`, [
        [...new Set(ids)],
      ]);
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.flatMap((id) => {
        const row = byId.get(id);
        return row === undefined ? [] : [toChunkRecord(row)];
      });
    },

    async listChunks(datasourceId: string): Promise<ChunkRecord[]> {
      const rows = await selectRows<ChunkRow>(
        pool,
        `SELECT ${CHUNK_SELECT} FROM ${s}.chunks WHERE datasource_id = $1 ORDER BY position, pk`,
        [datasourceId],
      );
      return rows.map(toChunkRecord);
    },

    /** One keyset page over the (datastore_id, hash, pk) index; `cursor` is the last row of the previous page. */
    async countChunks(datastoreId: string): Promise<number> {
      const row = await selectRow<{ chunk_count: string }>(pool, `SELECT chunk_count FROM ${s}.datastores WHERE id = $1`, [datastoreId]);
      return row === undefined ? 0 : Number(row.chunk_count);
    },

    async findVectorsByHash(datastoreId: string, hashes: readonly string[], dimensions: number): Promise<Map<string, Float32Array>> {
      const found = new Map<string, Float32Array>();
      if (hashes.length === 0 || !Number.isInteger(dimensions) || dimensions <= 0) return found;
      const rows = await selectRows<{ hash: string; embedding: number[] }>(
        pool,
        `SELECT DISTINCT ON (hash) hash, embedding FROM ${s}.chunks
         WHERE datastore_id = $1 AND hash = ANY($2::text[]) AND cardinality(embedding) = $3
         ORDER BY hash, pk`,
        [datastoreId, [...new Set(hashes)], dimensions],
      );
      for (const row of rows) found.set(row.hash, Float32Array.from(row.embedding));
      return found;
    },

    async chunkSequence(datastoreId: string): Promise<number> {
      const row = await selectRow<{ chunk_sequence: string }>(pool, `SELECT chunk_sequence FROM ${s}.datastores WHERE id = $1`, [
        datastoreId,
      ]);
      return row === undefined ? 0 : Number(row.chunk_sequence);
    },
  } satisfies Implementation<Pick<ChunkStore, 'getChunks' | 'listChunks' | 'countChunks' | 'findVectorsByHash' | 'chunkSequence'>>;

  return {
    methods,
    replaceChunks(datasourceId: string, chunks: readonly ChunkRecord[], patch: DatasourcePatch | undefined): Promise<ChunkChange> {
      return inTransaction(pool, async (client) => {
        const source = await lockDatasource(client, datasourceId);
        if (source === null) throw notFound('datasource', datasourceId);
        const next = assertChunkBatch(source, chunks);
        // The datasource's current ids and any incoming id another datasource owns, in one read.
        const rows = await selectRows<{ id: string; datasource_id: string }>(
          client,
          `SELECT id, datasource_id FROM ${s}.chunks WHERE datasource_id = $1 OR id = ANY($2::text[])`,
          [datasourceId, [...next]],
        );
        const foreign = rows.find((row) => row.datasource_id !== datasourceId);
        if (foreign !== undefined) throw chunkOwnedElsewhere(foreign.id, foreign.datasource_id);
        const existing = new Set(rows.map((row) => row.id));
        const removedIds = [...existing].filter((id) => !next.has(id));
        const addedIds = [...next].filter((id) => !existing.has(id));
        if (removedIds.length > 0) {
          await client.query(`DELETE FROM ${s}.chunks WHERE id = ANY($1::text[])`, [removedIds]);
        }
        await writeChunks(client, source.datastoreId, datasourceId, chunks);
        const sequence = await finish(client, source, patch, addedIds.length - removedIds.length);
        return { removedIds, addedIds, sequence };
      });
    },

    /** Chunks, files, jobs and events cascade with the row; the sequence moves even when there were no chunks. */
    deleteDatasource(id: string): Promise<ChunkChange | null> {
      return inTransaction(pool, async (client) => {
        const datastoreId = await lockDatastoreOf(client, id);
        if (datastoreId === null) return null;
        const removed = await selectRows<{ id: string }>(client, `SELECT id FROM ${s}.chunks WHERE datasource_id = $1`, [id]);
        await client.query(`DELETE FROM ${s}.datasources WHERE id = $1`, [id]);
        const removedIds = removed.map((row) => row.id);
        const row = await selectRow<{ chunk_sequence: string }>(
          client,
          `UPDATE ${s}.datastores SET chunk_sequence = chunk_sequence + 1, chunk_count = chunk_count - $2
           WHERE id = $1 RETURNING chunk_sequence`,
          [datastoreId, removedIds.length],
        );
        return { removedIds, addedIds: [], sequence: Number(row?.chunk_sequence ?? 0) };
      });
    },

    async page(datastoreId: string, cursor: { hash: string; pk: string } | null, size: number) {
      const rows = await selectRows<ChunkRow & { pk: string }>(
        pool,
        `SELECT ${CHUNK_SELECT}, pk FROM ${s}.chunks
         WHERE datastore_id = $1 AND (hash, pk) > ($2, $3::bigint) ORDER BY hash, pk LIMIT $4`,
        [datastoreId, cursor?.hash ?? '', cursor?.pk ?? '-1', size],
      );
      const last = rows[rows.length - 1];
      return {
        chunks: rows.map(toChunkRecord),
        cursor: last === undefined ? null : { hash: last.hash, pk: last.pk },
      };
    },

    /** Kept in the datastore row by every chunk write, so counting is one lookup at any size. */
  };
}
