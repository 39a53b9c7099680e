import type { SqliteDatabase, SqliteStatement } from './database.js';

/** IN lists up to this long get a statement of their own (prepared once per length, kept). */
const MAX_LISTED_IDS = 64;

/**
 * Raw rows of `select` (ending in `WHERE id IN`) for a list of distinct ids. Short lists (search
 * hits: 10 to 50) bind one parameter per id to a statement prepared for that length, ~20% cheaper
 * than expanding a JSON array with json_each, which longer lists still use.
 */
export function idListReader(db: SqliteDatabase, select: string): (ids: readonly string[]) => unknown[][] {
  const byLength = new Map<number, SqliteStatement>();
  const long = db.prepare(`${select} (SELECT value FROM json_each(?))`).raw(true);
  return (ids) => {
    if (ids.length > MAX_LISTED_IDS) return long.all(JSON.stringify(ids)) as unknown[][];
    let statement = byLength.get(ids.length);
    if (statement === undefined) {
      statement = db.prepare(`${select} (${ids.map(() => '?').join(', ')})`).raw(true);
      byLength.set(ids.length, statement);
    }
    return statement.all(...ids) as unknown[][];
  };
}
