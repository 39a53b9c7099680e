/**
 * The SQLite stores (`ragdesk/sqlite`): the retrieval store (records, chunks and vectors; bm25
 * search from an in-memory index built from the chunk rows) and the account store, in one file.
 */
export { sqliteStores, sqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
export type { SqliteDatabase, SqliteStatement, SqliteValue } from './database.js';
export { DEFAULT_LEXICAL_OPTIONS, type LexicalSearchOptions } from './lexical-search.js';
export { SCHEMA_VERSION } from './schema.js';
