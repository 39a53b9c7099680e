import type pg from 'pg';
import type { ChunkRecord, DatasourceRecord } from '../../src/ports/records.js';
import type { ChunkPageQuery, ChunkStore, DatasourcePageQuery, DatasourceStore, StorePage } from '../../src/ports/store.js';
import { pageBounds } from '../kit/folded-contains.js';
import type { Implementation } from '../kit/guarded-methods.js';
import { toChunkRecord as chunkRecordOf, type ChunkRowFields } from '../kit/record-rows.js';
import { selectRow, selectRows } from './connection.js';
import { CHUNK_COLUMNS, columnList, DATASOURCE_COLUMNS, toDatasourceRecord, type DatasourceRow } from './row-mapping.js';

const NO_VECTOR = new Float32Array(0);
/** Chunk columns without the embedding: a page is for reading, and the embedding is most of a row. */
const CHUNK_TEXT_SELECT = columnList(CHUNK_COLUMNS.filter((column) => column !== 'embedding'));
const DATASOURCE_SELECT = columnList(DATASOURCE_COLUMNS);

/**
 * Pages of datasources and of a datasource's chunks with LIMIT/OFFSET over the indexes the lists
 * use, (datastore_id, created_at, pk) and (datasource_id, position, pk), and a count of the rows
 * that match. The text filters run in the database (`strpos(lower(..), lower(..))`): case folds as
 * the database's collation does (every letter in a UTF-8 locale, ASCII only under "C").
 */
export function pageQueries(pool: pg.Pool, s: string) {
  return {
    async pageDatasources(datastoreId: string, query: DatasourcePageQuery): Promise<StorePage<DatasourceRecord>> {
      const { offset, limit } = pageBounds(query);
      const params: unknown[] = [datastoreId];
      let where = 'datastore_id = $1';
      if (query.groupId === null) where += ' AND group_id IS NULL';
      else if (query.groupId !== undefined) where += ` AND group_id = $${params.push(query.groupId)}`;
      if (query.nameContains) where += ` AND strpos(lower(name), lower($${params.push(query.nameContains)})) > 0`;
      const [count, rows] = await Promise.all([
        selectRow<{ count: string }>(pool, `SELECT count(*) AS count FROM ${s}.datasources WHERE ${where}`, params),
        selectRows<DatasourceRow>(
          pool,
          `SELECT ${DATASOURCE_SELECT} FROM ${s}.datasources WHERE ${where} ORDER BY created_at, pk LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
          [...params, limit, offset],
        ),
      ]);
      return { items: rows.map(toDatasourceRecord), total: Number(count?.count ?? 0) };
    },

    async pageChunks(datasourceId: string, query: ChunkPageQuery): Promise<StorePage<ChunkRecord>> {
      const { offset, limit } = pageBounds(query);
      const params: unknown[] = [datasourceId];
      let where = 'datasource_id = $1';
      if (query.textContains) where += ` AND strpos(lower(text), lower($${params.push(query.textContains)})) > 0`;
      const [count, rows] = await Promise.all([
        selectRow<{ count: string }>(pool, `SELECT count(*) AS count FROM ${s}.chunks WHERE ${where}`, params),
        selectRows<ChunkRowFields>(
          pool,
          `SELECT ${CHUNK_TEXT_SELECT} FROM ${s}.chunks WHERE ${where} ORDER BY position, pk LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
          [...params, limit, offset],
        ),
      ]);
      return { items: rows.map((row) => chunkRecordOf(row, NO_VECTOR)), total: Number(count?.count ?? 0) };
    },
  } satisfies Implementation<Required<Pick<DatasourceStore, 'pageDatasources'>> & Required<Pick<ChunkStore, 'pageChunks'>>>;
}
