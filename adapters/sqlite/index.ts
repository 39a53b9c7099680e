/**
 * The SQLite store (`ragdesk/sqlite`): records, chunks and vectors in one file; bm25 search from an
 * in-memory index built from the chunk rows.
 */
export { sqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
export type { SqliteDatabase, SqliteStatement, SqliteValue } from './database.js';
export { DEFAULT_LEXICAL_OPTIONS, type LexicalSearchOptions } from './lexical-search.js';
export { SCHEMA_VERSION } from './schema.js';
