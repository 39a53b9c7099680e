import { createHash } from 'node:crypto';
import type { RetrievalFilter } from '../../src/ports/records.js';
import { quoteLiteral } from './connection.js';
import { vectorLiteral } from './row-mapping.js';

/** HNSW settings. Build settings apply to indexes created afterwards; search settings to every query. */
export interface HnswOptions {
  /** Graph degree (pgvector default 16). More: better recall, bigger and slower to build. */
  m: number;
  /** Candidate list while building (pgvector default 64). More: better graph, slower build. */
  efConstruction: number;
  /** Candidate list while searching (pgvector default 40). More: better recall, slower queries. */
  efSearch: number;
  /**
   * With a filter, pgvector's iterative scan keeps walking the graph until `topK` rows pass it or
   * this many tuples were visited (pgvector default 20,000); past it the adapter searches exactly.
   */
  maxScanTuples: number;
}

export const DEFAULT_HNSW: HnswOptions = { m: 16, efConstruction: 64, efSearch: 100, maxScanTuples: 20_000 };

/**
 * Name of a datastore's HNSW index for one vector length. Derived from a hash because datastore
 * ids are arbitrary strings and Postgres names stop at 63 bytes; the prefix finds all of a datastore's.
 */
export function hnswIndexPrefix(datastoreId: string): string {
  return `hnsw_${createHash('sha256').update(datastoreId).digest('hex').slice(0, 24)}_`;
}

export function hnswIndexName(datastoreId: string, dimensions: number): string {
  return `${hnswIndexPrefix(datastoreId)}${dimensions}`;
}

/**
 * The partial-index predicate. Queries repeat it literally so the planner can prove the index
 * applies; the length test keeps rows of another length (during a reindex to a new model) out of
 * the index, where casting them to `vector(n)` would fail.
 */
export function scopePredicate(datastoreId: string, dimensions: number): string {
  return `datastore_id = ${quoteLiteral(datastoreId)} AND cardinality(embedding) = ${dimensions}`;
}

/** `CREATE INDEX` of a datastore's HNSW index over `chunks` (cosine distance on `embedding::vector(n)`). */
export function createIndexStatement(s: string, datastoreId: string, dimensions: number, hnsw: HnswOptions): string {
  return `CREATE INDEX IF NOT EXISTS ${hnswIndexName(datastoreId, dimensions)} ON ${s}.chunks
    USING hnsw ((embedding::vector(${dimensions})) vector_cosine_ops)
    WITH (m = ${hnsw.m}, ef_construction = ${hnsw.efConstruction})
    WHERE ${scopePredicate(datastoreId, dimensions)}`;
}

/**
 * One nearest-neighbour query as a single simple-protocol message: the `SET LOCAL`s and the SELECT
 * run in one implicit transaction, so the settings hold for this query only, on whatever pooled
 * connection runs it, in one round trip. Simple protocol means no parameters: every value is a
 * literal, strings quoted by the driver's escaping and the vector printed from numbers.
 *
 * `mode.exact` turns plain index scans off: the planner then reads the rows of the datastore (through
 * a bitmap scan of the filter's b-tree indexes when there is a filter) and sorts them, which is
 * exact; HNSW cannot serve a bitmap scan.
 */
export function nearestStatement(
  s: string,
  datastoreId: string,
  dimensions: number,
  vector: Float32Array,
  topK: number,
  filter: RetrievalFilter | undefined,
  hnsw: HnswOptions,
  mode: { exact: boolean; iterativeScans: boolean },
): string {
  const { exact } = mode;
  const target = `${quoteLiteral(vectorLiteral(vector, '[', ']'))}::vector(${dimensions})`;
  const distance = `embedding::vector(${dimensions}) <=> ${target}`;
  const conditions = [scopePredicate(datastoreId, dimensions)];
  const sources = filter?.datasourceIds ?? [];
  const tenants = filter?.customIds ?? [];
  if (sources.length > 0) conditions.push(`datasource_id = ANY(${textArray(sources)})`);
  if (tenants.length > 0) conditions.push(`custom_id = ANY(${textArray(tenants)})`);
  // pgvector reserves the `hnsw.` prefix: setting a parameter an older version lacks is an error.
  const settings = exact
    ? ['SET LOCAL enable_indexscan = off']
    : [
        `SET LOCAL hnsw.ef_search = ${hnsw.efSearch}`,
        ...(mode.iterativeScans
          ? ['SET LOCAL hnsw.iterative_scan = relaxed_order', `SET LOCAL hnsw.max_scan_tuples = ${hnsw.maxScanTuples}`]
          : []),
      ];
  const select = `SELECT id, ${distance} AS distance FROM ${s}.chunks
    WHERE ${conditions.join(' AND ')}
    ORDER BY ${distance} LIMIT ${topK}`;
  // relaxed_order lets the iterative scan return rows slightly out of distance order (better
  // recall than strict_order under filters: 0.99 vs 0.93 measured, docs/decisions/016-postgres-vectors-in-the-store.md); the outer
  // query re-sorts them.
  return exact
    ? `${settings.join('; ')}; ${select}`
    : `${settings.join('; ')}; WITH nearest AS MATERIALIZED (${select}) SELECT id, distance FROM nearest ORDER BY distance`;
}

function textArray(values: readonly string[]): string {
  return `ARRAY[${values.map((value) => quoteLiteral(value)).join(', ')}]::text[]`;
}
