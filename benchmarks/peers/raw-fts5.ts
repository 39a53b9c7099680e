/**
 * Floor for keyword search: one better-sqlite3 FTS5 table (ragdesk's tokenizer: porter unicode61
 * remove_diacritics 2), filled in one transaction, queried with the query's words OR-ed and ordered
 * by bm25. No query pruning, no stopword list, no vectors.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { PeerFactory } from './peer.js';
import { folderBytes, sharedChunks } from './shared.js';

/** Every distinct word of the query as a quoted FTS5 string, OR-ed (quotes keep FTS5 syntax out). */
export function ftsQuery(text: string): string | undefined {
  const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  return words.length === 0 ? undefined : words.map((word) => `"${word}"`).join(' OR ');
}

export const rawFts5Peer: PeerFactory = {
  available: true,
  info: {
    id: 'raw-fts5',
    label: 'raw SQLite FTS5 (floor)',
    library: 'better-sqlite3 12.11.1 (SQLite FTS5)',
    modes: ['lexical'],
    storage: 'disk',
    chunker: 'shared (ragdesk, 512/64)',
    notes: ['bm25 over every query word, no pruning'],
  },
  async open({ dir }) {
    const db = new Database(join(dir, 'fts.db'));
    db.pragma('journal_mode = WAL');
    db.exec("CREATE VIRTUAL TABLE chunks USING fts5(text, doc_id UNINDEXED, tokenize = 'porter unicode61 remove_diacritics 2')");
    const insert = db.prepare('INSERT INTO chunks (text, doc_id) VALUES (?, ?)');
    const select = db.prepare(
      'SELECT doc_id AS docId, -bm25(chunks) AS score FROM chunks WHERE chunks MATCH ? ORDER BY bm25(chunks) LIMIT ?',
    );
    const add = db.transaction((rows: readonly { text: string; docId: string }[]) => {
      for (const row of rows) insert.run(row.text, row.docId);
    });
    return {
      async ingestDocuments(documents) {
        const chunks = sharedChunks(documents);
        add(chunks);
        return { chunks: chunks.length };
      },
      async ingestChunks(chunks) {
        add(chunks);
        return { chunks: chunks.length };
      },
      async search(query, mode, k) {
        if (mode !== 'lexical') throw new Error(`raw-fts5 has no ${mode} search`);
        const match = ftsQuery(query);
        return match === undefined ? [] : (select.all(match, k) as { docId: string; score: number }[]);
      },
      async close() {
        const started = performance.now();
        db.close();
        return { diskBytes: folderBytes(dir), persistMs: performance.now() - started };
      },
    };
  },
};
