/**
 * `filters.metadata` as a Postgres condition on the jsonb form of the datasources' metadata text
 * (`metadata_document(metadata)`, schema.ts: the expression the index is built on). Equality and
 * `in` are containment tests (`@>`), which the GIN index `datasources_metadata` answers; `exists`
 * is the `?` operator (same index). Ranges check the JSON type first (a CASE, so no cast can fail)
 * and compare strings in the "C" collation, i.e. by code point as the other stores do. Every leaf
 * is true or false, never NULL, so `not` of a missing key matches.
 */
import type { MetadataFilter } from '../../src/ports/records.js';

const RANGE_SQL = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;
/** Appends its parameters to `params` (numbered after those already there); `s` is the quoted schema. */
export function metadataCondition(filter: MetadataFilter, params: unknown[], s: string): string {
  const DOCUMENT = `${s}.metadata_document(metadata)`;
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const compile = (node: MetadataFilter): string => {
    if ('and' in node) return `(${node.and.map(compile).join(' AND ')})`;
    if ('or' in node) return `(${node.or.map(compile).join(' OR ')})`;
    if ('not' in node) return `(NOT ${compile(node.not)})`;
    if ('exists' in node) return `(${node.exists ? '' : 'NOT '}${DOCUMENT} ? ${param(node.key)}::text)`;
    if ('eq' in node) return `(${DOCUMENT} @> ${param(JSON.stringify({ [node.key]: node.eq }))}::jsonb)`;
    if ('in' in node) {
      return `(${node.in.map((value) => `${DOCUMENT} @> ${param(JSON.stringify({ [node.key]: value }))}::jsonb`).join(' OR ')})`;
    }
    const key = param(node.key);
    const parts: string[] = [];
    for (const operator of ['gt', 'gte', 'lt', 'lte'] as const) {
      const bound = node[operator];
      if (bound === undefined) continue;
      parts.push(
        typeof bound === 'number'
          ? `${DOCUMENT} -> ${key}::text ${RANGE_SQL[operator]} to_jsonb(${param(bound)}::numeric)`
          : `(${DOCUMENT} ->> ${key}::text) COLLATE "C" ${RANGE_SQL[operator]} ${param(bound)}::text`,
      );
    }
    const type = typeof (node.gt ?? node.gte ?? node.lt ?? node.lte) === 'number' ? 'number' : 'string';
    return `(CASE WHEN jsonb_typeof(${DOCUMENT} -> ${key}::text) = '${type}' THEN ${parts.join(' AND ')} ELSE false END)`;
  };
  return compile(filter);
}
