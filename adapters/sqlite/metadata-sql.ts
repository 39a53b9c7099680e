/**
 * `filters.metadata` as a SQLite condition on the `metadata` JSON text of datasources. Every leaf
 * is wrapped in COALESCE(…, 0) so that it is 0 or 1, never NULL: `not` of a missing key must match.
 * Keys become JSON paths `$."key"` (the key JSON-quoted, which SQLite reads with its escapes).
 */
import type { MetadataFilter, MetadataValue } from '../../src/ports/records.js';

export interface SqlCondition {
  sql: string;
  params: unknown[];
}

const RANGE_SQL = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

export function metadataCondition(filter: MetadataFilter, column = 'metadata'): SqlCondition {
  const params: unknown[] = [];
  const sql = compile(filter, column, params);
  return { sql, params };
}

function compile(filter: MetadataFilter, column: string, params: unknown[]): string {
  if ('and' in filter) return `(${filter.and.map((item) => compile(item, column, params)).join(' AND ')})`;
  if ('or' in filter) return `(${filter.or.map((item) => compile(item, column, params)).join(' OR ')})`;
  if ('not' in filter) return `(NOT ${compile(filter.not, column, params)})`;
  const path = `$.${JSON.stringify(filter.key)}`;
  const type = () => {
    params.push(path);
    return `json_type(${column}, ?)`;
  };
  const value = () => {
    params.push(path);
    return `json_extract(${column}, ?)`;
  };
  if ('exists' in filter) return `(${type()} IS ${filter.exists ? 'NOT ' : ''}NULL)`;
  if ('eq' in filter) return `COALESCE(${equals(filter.eq, type, value, params)}, 0)`;
  if ('in' in filter) return `COALESCE((${filter.in.map((item) => equals(item, type, value, params)).join(' OR ')}), 0)`;
  const parts: string[] = [];
  for (const operator of ['gt', 'gte', 'lt', 'lte'] as const) {
    const bound = filter[operator];
    if (bound === undefined) continue;
    const types = typeof bound === 'number' ? `IN ('integer', 'real')` : `= 'text'`;
    parts.push(`(${type()} ${types} AND ${value()} ${RANGE_SQL[operator]} ?)`);
    params.push(bound);
  }
  return `COALESCE((${parts.join(' AND ')}), 0)`;
}

/** Same JSON type and same value: SQLite would otherwise take true for 1 and '1' for 1. */
function equals(expected: MetadataValue, type: () => string, value: () => string, params: unknown[]): string {
  if (expected === null) return `(${type()} = 'null')`;
  if (typeof expected === 'boolean') return `(${type()} = '${expected ? 'true' : 'false'}')`;
  const types = typeof expected === 'number' ? `IN ('integer', 'real')` : `= 'text'`;
  const sql = `(${type()} ${types} AND ${value()} = ?)`;
  params.push(expected);
  return sql;
}
