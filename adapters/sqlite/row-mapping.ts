import type { ChunkRecord, DatasourceRecord, DatasourceRef, DatastoreRecord, Metadata } from '../../src/ports/records.js';
import type { SqliteValue } from './database.js';

/** Conversions between records and rows. Column lists here and in the statements must agree. */

export interface DatastoreRow {
  id: string;
  owner_id: string | null;
  name: string;
  description: string;
  embedding_model: string;
  embedding_dimensions: number;
  created_at: string;
  updated_at: string;
}

export interface DatasourceRow {
  id: string;
  datastore_id: string;
  type: string;
  name: string;
  status: string;
  group_id: string | null;
  custom_id: string | null;
  config: string;
  metadata: string;
  error: string | null;
  content_hash: string | null;
  nb_chunks: number;
  nb_tokens: number;
  text_size: number;
  created_at: string;
  updated_at: string;
  last_synch: string | null;
}

export interface ChunkRow {
  id: string;
  datastore_id: string;
  datasource_id: string;
  custom_id: string | null;
  position: number;
  token_count: number;
  char_offset: number;
  page_number: number | null;
  hash: string;
  metadata: string;
  text: string;
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

export function toDatastoreRecord(row: DatastoreRow): DatastoreRecord {
  return {
    id: row.id,
    ownerId: row.owner_id,
    name: row.name,
    description: row.description,
    embeddingModel: row.embedding_model,
    embeddingDimensions: row.embedding_dimensions,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Values in {@link DATASTORE_COLUMNS} order. */
export function datastoreValues(record: DatastoreRecord): SqliteValue[] {
  return [
    record.id,
    record.name,
    record.description,
    record.embeddingModel,
    record.embeddingDimensions,
    record.createdAt,
    record.updatedAt,
    record.ownerId ?? null,
  ];
}

export function toDatasourceRecord(row: DatasourceRow): DatasourceRecord {
  return {
    id: row.id,
    datastoreId: row.datastore_id,
    type: row.type as DatasourceRecord['type'],
    name: row.name,
    status: row.status as DatasourceRecord['status'],
    groupId: row.group_id,
    customId: row.custom_id,
    config: JSON.parse(row.config) as Record<string, unknown>,
    metadata: JSON.parse(row.metadata) as Metadata,
    error: row.error,
    contentHash: row.content_hash,
    nbChunks: row.nb_chunks,
    nbTokens: row.nb_tokens,
    textSize: row.text_size,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastSynch: row.last_synch,
  };
}

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

/** The columns of a {@link DatasourceRef}, in the order `datasourceRefFromValues` reads them. */
export const DATASOURCE_REF_COLUMNS = 'id, type, name, config, metadata';

/** A {@link DatasourceRef} from a raw row of {@link DATASOURCE_REF_COLUMNS}. */
export function datasourceRefFromValues(values: readonly unknown[]): DatasourceRef {
  return {
    id: values[0] as string,
    type: values[1] as DatasourceRecord['type'],
    name: values[2] as string,
    config: JSON.parse(values[3] as string) as Record<string, unknown>,
    metadata: JSON.parse(values[4] as string) as Metadata,
  };
}

/** Values in {@link DATASOURCE_COLUMNS} order. */
export function datasourceValues(record: DatasourceRecord): SqliteValue[] {
  return [
    record.id,
    record.datastoreId,
    record.type,
    record.name,
    record.status,
    record.groupId,
    record.customId,
    JSON.stringify(record.config ?? {}),
    JSON.stringify(record.metadata ?? {}),
    record.error,
    record.contentHash,
    record.nbChunks,
    record.nbTokens,
    record.textSize,
    record.createdAt,
    record.updatedAt,
    record.lastSynch,
  ];
}

export function toChunkRecord(row: ChunkRow): ChunkRecord {
  return {
    id: row.id,
    datastoreId: row.datastore_id,
    datasourceId: row.datasource_id,
    customId: row.custom_id,
    position: row.position,
    text: row.text,
    tokenCount: row.token_count,
    charOffset: row.char_offset,
    hash: row.hash,
    pageNumber: row.page_number,
    metadata: JSON.parse(row.metadata) as Metadata,
    vector: vectorFromBlob(row.vector),
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
