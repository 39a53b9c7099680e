import type { ChunkRecord, DatasourceRecord, DatasourceStatus, DatastoreRecord, Metadata, StatusEvent } from '../../src/ports/records.js';

/**
 * Rows of datastores, datasources and chunks, and their records, for the SQL stores (SQLite and
 * Postgres share the column names). Objects are JSON text in both; what differs (a chunk's vector:
 * a BLOB or `real[]`) is passed in. A store lists columns in its own order and takes the values by
 * name (`valuesIn`).
 */

/** The values of `columns`, in that order, taken by name from a row. */
export function valuesIn<Row extends object>(columns: readonly (keyof Row & string)[], row: Row): Row[keyof Row][] {
  return columns.map((column) => row[column]);
}

/** The names in a comma-separated column list (`'id, name'`). */
export function columnNames<Row extends object>(columns: string): (keyof Row & string)[] {
  return columns.split(',').map((name) => name.trim()) as (keyof Row & string)[];
}

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
  /** Postgres `bigint` columns arrive as strings from the driver. */
  nb_tokens: number | string;
  text_size: number | string;
  created_at: string;
  updated_at: string;
  last_synch: string | null;
}

/** A chunk row without its vector, whose type is the dialect's. */
export interface ChunkRowFields {
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
}

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

export function datastoreRow(record: DatastoreRecord): DatastoreRow {
  return {
    id: record.id,
    owner_id: record.ownerId ?? null,
    name: record.name,
    description: record.description,
    embedding_model: record.embeddingModel,
    embedding_dimensions: record.embeddingDimensions,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
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
    nbTokens: Number(row.nb_tokens),
    textSize: Number(row.text_size),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastSynch: row.last_synch,
  };
}

export function datasourceRow(record: DatasourceRecord): DatasourceRow {
  return {
    id: record.id,
    datastore_id: record.datastoreId,
    type: record.type,
    name: record.name,
    status: record.status,
    group_id: record.groupId,
    custom_id: record.customId,
    config: JSON.stringify(record.config ?? {}),
    metadata: JSON.stringify(record.metadata ?? {}),
    error: record.error,
    content_hash: record.contentHash,
    nb_chunks: record.nbChunks,
    nb_tokens: record.nbTokens,
    text_size: record.textSize,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
    last_synch: record.lastSynch,
  };
}

export function toChunkRecord(row: ChunkRowFields, vector: Float32Array): ChunkRecord {
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
    vector,
  };
}

/** A row of a datasource's status history. */
export interface StatusEventRow {
  datasource_id: string;
  from_status: string | null;
  to_status: string;
  at: string;
  message: string | null;
}

export function toStatusEvent(row: StatusEventRow): StatusEvent {
  return {
    datasourceId: row.datasource_id,
    from: row.from_status as DatasourceStatus | null,
    to: row.to_status as DatasourceStatus,
    at: row.at,
    message: row.message,
  };
}
