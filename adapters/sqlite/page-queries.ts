import type { ChunkRecord, DatasourceRecord } from '../../src/ports/records.js';
import type { ChunkPageQuery, ChunkStore, DatasourcePageQuery, DatasourceStore, StorePage } from '../../src/ports/store.js';
import { containsFolded, foldedNeedle, pageBounds } from '../kit/folded-contains.js';
import type { Implementation } from '../kit/guarded-methods.js';
import { toChunkRecord as chunkRecordOf, type ChunkRowFields } from '../kit/record-rows.js';
import type { SqliteDatabase, SqliteValue } from './database.js';
import { CHUNK_COLUMNS, DATASOURCE_COLUMNS, toDatasourceRecord, type DatasourceRow } from './row-mapping.js';

const NO_VECTOR = new Float32Array(0);
/** Chunk columns without the vector: a page is for reading, and the vector is most of a row. */
const CHUNK_TEXT_COLUMNS = CHUNK_COLUMNS.slice(0, CHUNK_COLUMNS.lastIndexOf(','));
/** A datasource's visible rows (its `chunk_generation`), found by the (datasource_id, generation, position) index. */
const VISIBLE_CHUNKS = 'datasource_id = ? AND generation = (SELECT chunk_generation FROM datasources WHERE id = ?)';

/**
 * Pages of datasources and of a datasource's chunks, read with LIMIT/OFFSET over the indexes the
 * lists already use (no new index). A text filter reads only the key and the filtered column of
 * every candidate, filters them here (folded like the core, which SQLite's ASCII-only `lower()`
 * would not do), then reads the page's rows by key.
 */
export function pageQueries(db: SqliteDatabase) {
  const chunkCount = db.prepare(`SELECT count(*) AS count FROM chunks WHERE ${VISIBLE_CHUNKS}`);
  const chunkPage = db.prepare(`SELECT ${CHUNK_TEXT_COLUMNS} FROM chunks WHERE ${VISIBLE_CHUNKS} ORDER BY position, pk LIMIT ? OFFSET ?`);
  const chunkTexts = db.prepare(`SELECT pk, text FROM chunks WHERE ${VISIBLE_CHUNKS} ORDER BY position, pk`).raw(true);
  const chunksByPk = db.prepare(
    `SELECT ${CHUNK_TEXT_COLUMNS} FROM chunks WHERE pk IN (SELECT value FROM json_each(?)) ORDER BY position, pk`,
  );
  const datasourcesByPk = db.prepare(
    `SELECT ${DATASOURCE_COLUMNS} FROM datasources WHERE pk IN (SELECT value FROM json_each(?)) ORDER BY created_at, pk`,
  );

  /** The WHERE of a datasource page without the name filter, and its parameters. */
  function datasourceScope(datastoreId: string, groupId: string | null | undefined): { sql: string; params: SqliteValue[] } {
    if (groupId === undefined) return { sql: 'datastore_id = ?', params: [datastoreId] };
    if (groupId === null) return { sql: 'datastore_id = ? AND group_id IS NULL', params: [datastoreId] };
    return { sql: 'datastore_id = ? AND group_id = ?', params: [datastoreId, groupId] };
  }

  /** Statements per scope shape (three at most), prepared once. */
  const prepared = new Map<string, ReturnType<SqliteDatabase['prepare']>>();
  const statement = (sql: string) => {
    let found = prepared.get(sql);
    if (found === undefined) prepared.set(sql, (found = db.prepare(sql)));
    return found;
  };

  const chunkOf = (row: ChunkRowFields): ChunkRecord => chunkRecordOf(row, NO_VECTOR);

  return {
    pageDatasources(datastoreId: string, query: DatasourcePageQuery): StorePage<DatasourceRecord> {
      const { offset, limit } = pageBounds(query);
      const scope = datasourceScope(datastoreId, query.groupId);
      const needle = foldedNeedle(query.nameContains);
      if (needle === undefined) {
        const total = (statement(`SELECT count(*) AS count FROM datasources WHERE ${scope.sql}`).get(...scope.params) as { count: number })
          .count;
        const rows = statement(
          `SELECT ${DATASOURCE_COLUMNS} FROM datasources WHERE ${scope.sql} ORDER BY created_at, pk LIMIT ? OFFSET ?`,
        ).all(...scope.params, limit, offset) as DatasourceRow[];
        return { items: rows.map(toDatasourceRecord), total };
      }
      const names = statement(`SELECT pk, name FROM datasources WHERE ${scope.sql} ORDER BY created_at, pk`).all(...scope.params) as {
        pk: number;
        name: string;
      }[];
      const matching = names.filter((row) => containsFolded(row.name, needle));
      const page = matching.slice(offset, offset + limit).map((row) => row.pk);
      const rows = page.length === 0 ? [] : (datasourcesByPk.all(JSON.stringify(page)) as DatasourceRow[]);
      return { items: rows.map(toDatasourceRecord), total: matching.length };
    },

    pageChunks(datasourceId: string, query: ChunkPageQuery): StorePage<ChunkRecord> {
      const { offset, limit } = pageBounds(query);
      const needle = foldedNeedle(query.textContains);
      if (needle === undefined) {
        const total = (chunkCount.get(datasourceId, datasourceId) as { count: number }).count;
        const rows = chunkPage.all(datasourceId, datasourceId, limit, offset) as ChunkRowFields[];
        return { items: rows.map(chunkOf), total };
      }
      const texts = chunkTexts.all(datasourceId, datasourceId) as [number, string][];
      const matching = texts.filter(([, text]) => containsFolded(text, needle));
      const page = matching.slice(offset, offset + limit).map(([pk]) => pk);
      const rows = page.length === 0 ? [] : (chunksByPk.all(JSON.stringify(page)) as ChunkRowFields[]);
      return { items: rows.map(chunkOf), total: matching.length };
    },
  } satisfies Implementation<Required<Pick<DatasourceStore, 'pageDatasources'>> & Required<Pick<ChunkStore, 'pageChunks'>>>;
}
