import type { ChunkRecord, DatasourceRecord, DatastoreRecord } from '../../src/ports/records.js';
import { datasourceRow, datastoreRow, toChunkRecord as chunkRecordOf, valuesIn, type ChunkRowFields } from '../kit/record-rows.js';

export { toDatasourceRecord, toDatastoreRecord, type DatasourceRow, type DatastoreRow } from '../kit/record-rows.js';

/** Conversions between records and rows. Column lists here and in the statements must agree. */

export interface ChunkRow extends ChunkRowFields {
  /** `real[]`, parsed by the driver into numbers. */
  embedding: number[];
}

// Keys come first (id; then datastore_id for datasources): updates skip them by position.
export const DATASTORE_COLUMNS = [
  'id',
  'owner_id',
  'name',
  'description',
  'embedding_model',
  'embedding_dimensions',
  'created_at',
  'updated_at',
] as const;

export const DATASOURCE_COLUMNS = [
  'id',
  'datastore_id',
  'type',
  'name',
  'status',
  'group_id',
  'custom_id',
  'config',
  'metadata',
  'error',
  'content_hash',
  'nb_chunks',
  'nb_tokens',
  'text_size',
  'created_at',
  'updated_at',
  'last_synch',
] as const;

export const CHUNK_COLUMNS = [
  'id',
  'datastore_id',
  'datasource_id',
  'custom_id',
  'position',
  'token_count',
  'char_offset',
  'page_number',
  'hash',
  'metadata',
  'text',
  'embedding',
] as const;

/** `a, b, c` for a SELECT or INSERT column list, optionally prefixed by a table alias. */
export function columnList(columns: readonly string[], alias?: string): string {
  return columns.map((column) => (alias === undefined ? column : `${alias}.${column}`)).join(', ');
}

/** `$1, $2, ...` for `count` parameters starting at `from`. */
export function placeholders(count: number, from = 1): string {
  return Array.from({ length: count }, (_, i) => `$${i + from}`).join(', ');
}

/** `b = $2, c = $3` for the columns after the first `skip`, numbered from `from`. */
export function assignments(columns: readonly string[], skip: number, from = 1): string {
  return columns
    .slice(skip)
    .map((column, i) => `${column} = $${i + from}`)
    .join(', ');
}

/**
 * A Float32Array as a Postgres `real[]` literal. Each float printed as its (double) shortest
 * decimal parses back, through `float4in`'s correct rounding, to the very same float; `-0`, which
 * JavaScript prints as `0`, is spelled out so its sign survives.
 */
export function vectorLiteral(vector: Float32Array, open = '{', close = '}'): string {
  let text = open;
  for (let i = 0; i < vector.length; i++) {
    const value = vector[i] as number;
    if (i > 0) text += ',';
    text += value === 0 && Object.is(value, -0) ? '-0' : String(value);
  }
  return text + close;
}

/** Values in {@link DATASTORE_COLUMNS} order. */
export const datastoreValues = (record: DatastoreRecord): unknown[] => valuesIn(DATASTORE_COLUMNS, datastoreRow(record));
/** Values in {@link DATASOURCE_COLUMNS} order. */
export const datasourceValues = (record: DatasourceRecord): unknown[] => valuesIn(DATASOURCE_COLUMNS, datasourceRow(record));

export const toChunkRecord = (row: ChunkRow): ChunkRecord => chunkRecordOf(row, Float32Array.from(row.embedding));
