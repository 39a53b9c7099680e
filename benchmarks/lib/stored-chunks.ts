import Database from 'better-sqlite3';

/** A chunk of a BEIR corpus as the public API stored it, with the BEIR id of its document. */
export interface StoredBeirChunk {
  id: string;
  doc: string;
  text: string;
}

/**
 * The chunks a closed ragdesk SQLite file holds, in id order, each with the `beir_id` its
 * datasource's metadata carries (`indexBeirCorpus` sets it): what the cross-validation benchmarks
 * score offline.
 */
export function readStoredBeirChunks(dbPath: string): StoredBeirChunk[] {
  const db = new Database(dbPath, { readonly: true });
  try {
    const rows = db
      .prepare(
        'SELECT c.id AS id, c.text AS text, d.metadata AS metadata FROM chunks c JOIN datasources d ON d.id = c.datasource_id ORDER BY c.id',
      )
      .all() as { id: string; text: string; metadata: string }[];
    return rows.map((row) => ({
      id: row.id,
      text: row.text,
      doc: String((JSON.parse(row.metadata) as { beir_id: string }).beir_id),
    }));
  } finally {
    db.close();
  }
}
