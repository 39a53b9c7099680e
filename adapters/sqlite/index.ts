/**
 * The SQLite store (`ragdesk/sqlite`): records, chunks, vectors and FTS5 search in one file.
 */
export { sqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
export type { SqliteDatabase, SqliteStatement, SqliteValue } from './database.js';
export { DEFAULT_LEXICAL_LIMITS, type LexicalSearchLimits } from './term-plan.js';
export { SCHEMA_VERSION } from './schema.js';
