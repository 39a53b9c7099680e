/**
 * The SQLite store (`ragdesk/sqlite`): records, chunks, vectors and FTS5 search in one file.
 */
export { sqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
export type { SqliteDatabase, SqliteStatement, SqliteValue } from './database.js';
export type { LexicalSearchLimits } from './lexical-search.js';
export { SCHEMA_VERSION } from './schema.js';
