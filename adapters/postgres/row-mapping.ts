import type { ChunkRecord, DatasourceRecord, DatastoreRecord, JobRecord, JobStatus, Metadata } from '../../src/ports/records.js';

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
  nb_tokens: string | number;
  text_size: string | number;
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
  /** `real[]`, parsed by the driver into numbers. */
  embedding: number[];
}

export interface JobRow {
  id: string;
  kind: string;
  datastore_id: string;
  datasource_id: string;
  status: string;
  attempts: number;
  run_at: string;
  lease_owner: string | null;
  lease_until: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
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

export const JOB_COLUMNS = [
  'id',
  'kind',
  'datastore_id',
  'datasource_id',
  'status',
  'attempts',
  'run_at',
  'lease_owner',
  'lease_until',
  'last_error',
  'created_at',
  'updated_at',
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
export function datastoreValues(record: DatastoreRecord): unknown[] {
  return [
    record.id,
    record.ownerId ?? null,
    record.name,
    record.description,
    record.embeddingModel,
    record.embeddingDimensions,
    record.createdAt,
    record.updatedAt,
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
    // bigint columns arrive as strings from the driver.
    nbTokens: Number(row.nb_tokens),
    textSize: Number(row.text_size),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastSynch: row.last_synch,
  };
}

/** Values in {@link DATASOURCE_COLUMNS} order. */
export function datasourceValues(record: DatasourceRecord): unknown[] {
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
    vector: Float32Array.from(row.embedding),
  };
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

export function toJobRecord(row: JobRow): JobRecord {
  return {
    id: row.id,
    kind: row.kind as JobRecord['kind'],
    datastoreId: row.datastore_id,
    datasourceId: row.datasource_id,
    status: row.status as JobStatus,
    attempts: row.attempts,
    runAt: row.run_at,
    leaseOwner: row.lease_owner,
    leaseUntil: row.lease_until,
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Values in {@link JOB_COLUMNS} order. */
export function jobValues(job: JobRecord): unknown[] {
  return [
    job.id,
    job.kind,
    job.datastoreId,
    job.datasourceId,
    job.status,
    job.attempts,
    job.runAt,
    job.leaseOwner,
    job.leaseUntil,
    job.lastError,
    job.createdAt,
    job.updatedAt,
  ];
}
