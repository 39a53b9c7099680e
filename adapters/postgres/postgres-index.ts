import { invalidRequest, notFound, RagdeskError } from '../../src/errors.js';
import type { ScoredId } from '../../src/ports/records.js';
import type { IndexCollection, IndexEntry, IndexQuery, IndexSource, OpenResult, VectorIndex } from '../../src/ports/vector-index.js';
import { checkEntries, checkVector } from '../kit/vector-index-input.js';
import {
  inTransaction,
  openPool,
  quoteIdentifier,
  selectRow,
  selectRows,
  translateError,
  type PoolHandle,
  type PostgresConnectionOptions,
} from './connection.js';
import type { PostgresCommonOptions } from './postgres-store.js';
import { DEFAULT_SCHEMA, migrate } from './schema.js';
import {
  createIndexStatement,
  DEFAULT_HNSW,
  hnswIndexName,
  hnswIndexPrefix,
  nearestStatement,
  scopePredicate,
  type HnswOptions,
} from './vector-search.js';

export type PostgresIndexOptions = PostgresConnectionOptions &
  PostgresCommonOptions & {
    /** HNSW build and search settings (see docs/postgres.md for their measured trade-offs). */
    hnsw?: Partial<HnswOptions>;
  };

interface OpenCollection {
  dimensions: number;
  model: string;
}

/**
 * The `VectorIndex` port on pgvector, over the vectors `postgresStore` keeps in `chunks.embedding`
 * of the same database and schema. Nothing is copied: every datastore gets a partial HNSW index
 * (cosine) on `embedding::vector(n)` limited to its rows, and queries run filters in the same SQL
 * as the nearest-neighbour search.
 *
 * Because the index reads the store's own rows, it is never stale: `upsert` and `remove` only
 * check their input (the store already wrote the rows, in the same transaction as everything
 * else), the `sequence` they carry needs no recording, and `open` only makes sure the datastore's
 * HNSW index exists. Several instances can therefore share the database without any index state
 * of their own. Use it with `postgresStore`; with another store it finds no vectors.
 */
export async function postgresIndex(options: PostgresIndexOptions): Promise<VectorIndex> {
  const handle = openPool(options);
  handle.retain();
  return createPostgresIndex(handle, options);
}

/** The index over a pool handle it shares (see `postgres()`). */
export async function createPostgresIndex(
  handle: PoolHandle,
  options: PostgresCommonOptions & { hnsw?: Partial<HnswOptions> },
): Promise<VectorIndex> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const hnsw: HnswOptions = { ...DEFAULT_HNSW, ...options.hnsw };
  const { pool } = handle;
  const s = quoteIdentifier(schema);
  let iterativeScans = true;
  try {
    iterativeScans = await ensurePgvector(handle);
    // The store normally created the tables already; doing it here too lets the index open first.
    await migrate(pool, schema);
  } catch (error) {
    await handle.release();
    throw translateError(error, 'opening the pgvector index');
  }
  const opened = new Map<string, OpenCollection>();
  let closed = false;

  function collectionOf(datastoreId: string): OpenCollection {
    if (closed) throw new RagdeskError('closed', 'the pgvector index is closed');
    const collection = opened.get(datastoreId);
    if (collection === undefined) {
      throw notFound('vector collection', datastoreId);
    }
    return collection;
  }

  async function run<T>(action: string, operation: () => Promise<T>): Promise<T> {
    if (closed) throw new RagdeskError('closed', 'the pgvector index is closed');
    try {
      return await operation();
    } catch (error) {
      throw translateError(error, action);
    }
  }

  /** Creates the datastore's HNSW index when it does not exist (or a failed build left it invalid). */
  async function ensureHnsw(datastoreId: string, dimensions: number): Promise<boolean> {
    const name = hnswIndexName(datastoreId, dimensions);
    // Usually it exists: a plain read, which also works on a read-only replica.
    const ready = await selectRow<{ valid: boolean }>(
      pool,
      `SELECT i.indisvalid AS valid FROM pg_index i WHERE i.indexrelid = to_regclass($1)`,
      [`${s}.${name}`],
    );
    if (ready?.valid === true) return false;
    return inTransaction(pool, async (client) => {
      // Two instances opening the same datastore: the second waits here, then finds the index.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`ragdesk-hnsw:${schema}.${name}`]);
      const existing = await selectRow<{ valid: boolean }>(
        client,
        `SELECT i.indisvalid AS valid FROM pg_index i WHERE i.indexrelid = to_regclass($1)`,
        [`${s}.${name}`],
      );
      if (existing?.valid === true) return false;
      if (existing !== undefined) await client.query(`DROP INDEX ${s}.${name}`);
      await client.query(createIndexStatement(s, datastoreId, dimensions, hnsw));
      return true;
    });
  }

  async function dropHnsw(datastoreId: string): Promise<void> {
    const prefix = hnswIndexPrefix(datastoreId);
    const names = await selectRows<{ indexname: string }>(
      pool,
      `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'chunks' AND starts_with(indexname, $2)`,
      [schema, prefix],
    );
    for (const { indexname } of names) await pool.query(`DROP INDEX IF EXISTS ${s}.${quoteIdentifier(indexname)}`);
  }

  async function nearest(datastoreId: string, collection: OpenCollection, query: IndexQuery, exact: boolean): Promise<ScoredId[]> {
    const statement = nearestStatement(s, datastoreId, collection.dimensions, query.vector, Math.floor(query.topK), query.filter, hnsw, {
      exact,
      iterativeScans,
    });
    const results = (await pool.query(statement)) as unknown as { rows: { id: string; distance: number }[] }[];
    const rows = results[results.length - 1]?.rows ?? [];
    // Cosine distance is 1 - similarity; a zero vector has no direction (NaN): similarity 0, as the exact index says.
    return rows.map((row) => ({ id: row.id, score: Number.isNaN(row.distance) ? 0 : 1 - row.distance }));
  }

  return {
    name: 'pgvector',
    specificationVersion: 'v1',

    open: (collection: IndexCollection, _source: IndexSource): Promise<OpenResult> =>
      run('open', async () => {
        assertDimensions(collection.dimensions);
        const datastore = await selectRow(pool, `SELECT 1 FROM ${s}.datastores WHERE id = $1`, [collection.datastoreId]);
        if (datastore === undefined) {
          throw new RagdeskError(
            'not_found',
            `datastore ${JSON.stringify(collection.datastoreId)} is not in the Postgres store this index reads ` +
              '(postgresIndex searches the vectors postgresStore keeps in the same database and schema)',
            { details: { kind: 'datastore', id: collection.datastoreId } },
          );
        }
        const created = await ensureHnsw(collection.datastoreId, collection.dimensions);
        opened.set(collection.datastoreId, { dimensions: collection.dimensions, model: collection.model });
        // "Rebuilt" = an HNSW index was built from the stored rows; there is never anything stale to reload.
        return created ? { rebuilt: true, reason: 'missing' } : { rebuilt: false };
      }),

    upsert: (datastoreId: string, entries: readonly IndexEntry[], _sequence: number) =>
      run('upsert', async () => {
        const { dimensions } = collectionOf(datastoreId);
        checkEntries(entries, dimensions);
      }),

    remove: (datastoreId: string, _ids: readonly string[], _sequence: number) =>
      run('remove', async () => {
        collectionOf(datastoreId);
      }),

    query: (datastoreId: string, query: IndexQuery) =>
      run('query', async () => {
        const collection = collectionOf(datastoreId);
        checkVector(query.vector, collection.dimensions, 'vector');
        const topK = Math.floor(query.topK);
        if (!(topK > 0)) return [];
        const hits = await nearest(datastoreId, collection, { ...query, topK }, false);
        if (hits.length >= topK) return hits;
        // The graph walk stopped before topK rows passed the filter (or the planner skipped the
        // graph): an exact search over the matching rows returns all there are.
        return nearest(datastoreId, collection, { ...query, topK }, true);
      }),

    count: (datastoreId: string) =>
      run('count', async () => {
        const { dimensions } = collectionOf(datastoreId);
        const row = await selectRow<{ count: string }>(
          pool,
          `SELECT count(*) AS count FROM ${s}.chunks WHERE ${scopePredicate(datastoreId, dimensions)}`,
        );
        return Number(row?.count ?? 0);
      }),

    flush: (datastoreId?: string) =>
      run('flush', async () => {
        // Every write is already committed by the store: nothing is pending here.
        if (datastoreId !== undefined && !opened.has(datastoreId)) return;
      }),

    /** Drops the datastore's HNSW indexes; the vectors are the store's rows and stay (or go with the datastore). */
    drop: (datastoreId: string) =>
      run('drop', async () => {
        opened.delete(datastoreId);
        await dropHnsw(datastoreId);
      }),

    async close() {
      if (closed) return;
      closed = true;
      opened.clear();
      await handle.release();
    },
  };
}

/**
 * Creates the extension when allowed (otherwise says what to install) and checks its version:
 * HNSW needs pgvector 0.5; iterative index scans came with 0.8 (without them the adapter relies on
 * its exact fallback for filtered queries). Returns whether iterative scans are available.
 */
async function ensurePgvector(handle: PoolHandle): Promise<boolean> {
  const version = async () =>
    (await selectRow<{ extversion: string }>(handle.pool, `SELECT extversion FROM pg_extension WHERE extname = 'vector'`))?.extversion;
  let installed = await version();
  if (installed === undefined) {
    try {
      await handle.pool.query('CREATE EXTENSION IF NOT EXISTS vector');
    } catch (error) {
      throw new RagdeskError(
        'invalid_adapter',
        'the pgvector extension is not installed and could not be created ' +
          `(${error instanceof Error ? error.message : String(error)}); install pgvector and run CREATE EXTENSION vector as a privileged user`,
        { cause: error },
      );
    }
    installed = (await version()) ?? '0';
  }
  const [major = 0, minor = 0] = installed.split('.').map(Number);
  if (major === 0 && minor < 5) {
    throw new RagdeskError(
      'invalid_adapter',
      `pgvector ${installed} has no HNSW index; ragdesk needs pgvector 0.5 or newer (0.8+ recommended)`,
    );
  }
  return major > 0 || minor >= 8;
}

function assertDimensions(dimensions: number): void {
  // pgvector's HNSW indexes vectors of up to 2,000 dimensions.
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 2_000) {
    throw invalidRequest('the vector collection needs 1 to 2000 dimensions', [
      { path: 'dimensions', message: `got ${String(dimensions)}` },
    ]);
  }
}
