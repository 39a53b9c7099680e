import { lexicalIndexes, type ChunkText, type LexicalSearchOptions, type LexicalSource } from '../bm25/lexical-indexes.js';
import { visible } from './chunk-queries.js';
import { inTransaction, type SqliteDatabase } from './database.js';

export type { ChunkWrite, PreviousChunk } from '../bm25/chunk-writes.js';
export { DEFAULT_LEXICAL_OPTIONS, type LexicalSearchOptions } from '../bm25/lexical-indexes.js';

/**
 * The SQLite store's bm25 search: the engine of adapters/bm25 (lexical-indexes.ts) over this
 * database's chunk rows, with its snapshots in the `lexical_snapshots` table.
 */
export function lexicalSearch(db: SqliteDatabase, options: LexicalSearchOptions) {
  const selectSequence = db.prepare('SELECT chunk_sequence FROM datastores WHERE id = ?');
  // Keyset pages over the (datastore_id, hash) index, as iterateChunks reads them.
  const selectPage = db.prepare(
    `SELECT pk, id, datasource_id, custom_id, hash, text FROM chunks c
     WHERE datastore_id = ? AND (hash, pk) > (?, ?) AND ${visible('c')} ORDER BY hash, pk LIMIT ?`,
  );
  const selectSnapshot = db.prepare('SELECT chunk_sequence, data FROM lexical_snapshots WHERE datastore_id = ?');
  const deleteSnapshot = db.prepare('DELETE FROM lexical_snapshots WHERE datastore_id = ?');
  const saveSnapshot = db.prepare(
    `INSERT INTO lexical_snapshots (datastore_id, chunk_sequence, data) VALUES (?, ?, ?)
     ON CONFLICT (datastore_id) DO UPDATE SET chunk_sequence = excluded.chunk_sequence, data = excluded.data`,
  );

  const sequenceOf = (datastoreId: string) => (selectSequence.get(datastoreId) as { chunk_sequence: number } | undefined)?.chunk_sequence;

  const source: LexicalSource = {
    name: 'SQLite store',
    sequenceOf,
    pages(datastoreId, limit) {
      let cursor: { hash: string; pk: number } = { hash: '', pk: -1 };
      return (): ChunkText[] => {
        const rows = selectPage.all(datastoreId, cursor.hash, cursor.pk, limit) as ChunkTextRow[];
        const last = rows[rows.length - 1];
        if (last !== undefined) cursor = { hash: last.hash, pk: last.pk };
        return rows.map((row) => ({ id: row.id, datasourceId: row.datasource_id, customId: row.custom_id, text: row.text }));
      };
    },
    readSnapshot(datastoreId) {
      const row = selectSnapshot.get(datastoreId) as { chunk_sequence: number; data: Buffer } | undefined;
      return row === undefined ? undefined : { sequence: row.chunk_sequence, data: row.data };
    },
    deleteSnapshot(datastoreId) {
      deleteSnapshot.run(datastoreId);
    },
    saveSnapshot(datastoreId, sequence, encode) {
      inTransaction(db, () => {
        if (sequenceOf(datastoreId) !== sequence) return;
        saveSnapshot.run(datastoreId, sequence, encode());
      });
    },
  };
  return lexicalIndexes(source, options);
}

interface ChunkTextRow {
  pk: number;
  id: string;
  datasource_id: string;
  custom_id: string | null;
  hash: string;
  text: string;
}
