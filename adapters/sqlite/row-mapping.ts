import type { ChunkRecord, DatasourceRecord, DatasourceRef, DatastoreRecord, Metadata } from '../../src/ports/records.js';
import {
  columnNames,
  datasourceRow,
  datastoreRow,
  toChunkRecord as chunkRecordOf,
  valuesIn,
  type ChunkRowFields,
  type DatasourceRow,
  type DatastoreRow,
} from '../kit/record-rows.js';
import type { SqliteValue } from './database.js';

export { toDatasourceRecord, toDatastoreRecord, type DatasourceRow, type DatastoreRow } from '../kit/record-rows.js';

/** Conversions between records and rows. Column lists here and in the statements must agree. */

/** `?, ?, ?` for a comma-separated column list. */
export const placeholders = (columns: string): string =>
  columns
    .split(',')
    .map(() => '?')
    .join(', ');

/** `a = ?, b = ?` for the columns after the first `skip` (the keys, which never change). */
export const assignments = (columns: string, skip: number): string =>
  columns
    .split(',')
    .slice(skip)
    .map((column) => `${column.trim()} = ?`)
    .join(', ');

export interface ChunkRow extends ChunkRowFields {
  vector: Buffer;
}

// Keys come first (id; then datastore_id for datasources): updates skip them by position.
// owner_id is last because migration 4 added it; updates rewrite it with its unchanged value.
export const DATASTORE_COLUMNS = 'id, name, description, embedding_model, embedding_dimensions, created_at, updated_at, owner_id';

export const DATASOURCE_COLUMNS =
  'id, datastore_id, type, name, status, group_id, custom_id, config, metadata, error, ' +
  'content_hash, nb_chunks, nb_tokens, text_size, created_at, updated_at, last_synch';

export const CHUNK_COLUMNS =
  'id, datastore_id, datasource_id, custom_id, position, token_count, char_offset, page_number, ' + 'hash, metadata, text, vector';

/**
 * A datasource from a raw row of {@link DATASOURCE_COLUMNS}, by position: hydrating search hits
 * reads one per hit, and building a named row object first (17 dynamic keys) cost more than the
 * query itself.
 */
export function datasourceFromValues(values: readonly unknown[]): DatasourceRecord {
  return {
    id: values[0] as string,
    datastoreId: values[1] as string,
    type: values[2] as DatasourceRecord['type'],
    name: values[3] as string,
    status: values[4] as DatasourceRecord['status'],
    groupId: values[5] as string | null,
    customId: values[6] as string | null,
    config: JSON.parse(values[7] as string) as Record<string, unknown>,
    metadata: JSON.parse(values[8] as string) as Metadata,
    error: values[9] as string | null,
    contentHash: values[10] as string | null,
    nbChunks: values[11] as number,
    nbTokens: values[12] as number,
    textSize: values[13] as number,
    createdAt: values[14] as string,
    updatedAt: values[15] as string,
    lastSynch: values[16] as string | null,
  };
}

/**
 * A stored metadata or config object: most are empty, and a literal is cheaper than JSON.parse
 * (a search's hundred hits parse two or three each).
 */
export function parseMetadata(json: string): Metadata {
  return json === '{}' ? {} : (JSON.parse(json) as Metadata);
}

/** The columns of a {@link DatasourceRef}, in the order `datasourceRefFromValues` reads them. */
export const DATASOURCE_REF_COLUMNS = 'id, type, name, config, metadata';

/** A {@link DatasourceRef} from a raw row of {@link DATASOURCE_REF_COLUMNS}. */
export function datasourceRefFromValues(values: readonly unknown[]): DatasourceRef {
  return {
    id: values[0] as string,
    type: values[1] as DatasourceRecord['type'],
    name: values[2] as string,
    config: parseMetadata(values[3] as string),
    metadata: parseMetadata(values[4] as string),
  };
}

/** Values in {@link CHUNK_COLUMNS} order. */
export function chunkValues(chunk: ChunkRecord): SqliteValue[] {
  return [
    chunk.id,
    chunk.datastoreId,
    chunk.datasourceId,
    chunk.customId,
    chunk.position,
    chunk.tokenCount,
    chunk.charOffset,
    chunk.pageNumber,
    chunk.hash,
    JSON.stringify(chunk.metadata ?? {}),
    chunk.text,
    vectorToBlob(chunk.vector),
  ];
}

/**
 * The vector's exact bytes (platform order, little-endian on every platform Node ships for), so a
 * round trip is bit-exact: -0, subnormals and NaN payloads survive. A view, not a copy: SQLite
 * copies the bytes when it binds the blob.
 */
function vectorToBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/**
 * A fresh Float32Array over a copy of the blob. The driver's Buffer may sit at an odd offset of a
 * shared pool, where a Float32Array view would throw (or alias memory the driver reuses); a
 * trailing partial float (a corrupt row) is dropped rather than thrown on.
 */
export function vectorFromBlob(blob: Buffer | Uint8Array): Float32Array {
  const vector = new Float32Array(Math.floor(blob.byteLength / 4));
  new Uint8Array(vector.buffer).set(blob.subarray(0, vector.byteLength));
  return vector;
}

const DATASTORE_NAMES = columnNames<DatastoreRow>(DATASTORE_COLUMNS);
const DATASOURCE_NAMES = columnNames<DatasourceRow>(DATASOURCE_COLUMNS);

/** Values in {@link DATASTORE_COLUMNS} order. */
export const datastoreValues = (record: DatastoreRecord) => valuesIn(DATASTORE_NAMES, datastoreRow(record)) as SqliteValue[];
/** Values in {@link DATASOURCE_COLUMNS} order. */
export const datasourceValues = (record: DatasourceRecord) => valuesIn(DATASOURCE_NAMES, datasourceRow(record)) as SqliteValue[];

export const toChunkRecord = (row: ChunkRow): ChunkRecord => chunkRecordOf(row, vectorFromBlob(row.vector));
