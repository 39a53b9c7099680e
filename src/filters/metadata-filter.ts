/**
 * `filters.metadata`: the grammar's validation and the reference evaluation every store must agree
 * with (the conformance suite compares each store's answer with {@link matchesMetadata}).
 *
 *   { "key": "lang", "eq": "en" }                      equal (same type and value; `null` matches a null value)
 *   { "key": "tag", "in": ["faq", "howto"] }            equal to one of the values
 *   { "key": "author", "exists": true }                 the key is present (with any value, null included)
 *   { "key": "year", "gte": 2020, "lt": 2025 }          numeric range: gt / gte / lt / lte, one or more
 *   { "key": "date", "gte": "2024-01-01" }              date range: ISO-8601 UTC strings, compared in order
 *   { "and": [f, ...] }, { "or": [f, ...] }, { "not": f }
 */
import { z } from 'zod';
import type { Metadata, MetadataFilter, MetadataValue } from '../ports/records.js';

/** Bounds of one filter: a query's filter is a predicate, not a program. */
const MAX_FILTER_DEPTH = 8;
const MAX_FILTER_NODES = 256;
const MAX_IN_VALUES = 1000;
const MAX_KEY_CHARS = 256;
const MAX_STRING_CHARS = 10_000;

const RANGE_OPERATORS = ['gt', 'gte', 'lt', 'lte'] as const;
type RangeOperator = (typeof RANGE_OPERATORS)[number];
const LEAF_TESTS = ['eq', 'in', 'exists', ...RANGE_OPERATORS] as const;

/** A date bound: a day, or a UTC time (`Z`): both sort in time order as plain strings. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?Z)?$/;

interface Issue {
  path: (string | number)[];
  message: string;
}

/** Checks `value` against the grammar above; every problem is reported with its path. */
function check(value: unknown, path: (string | number)[], depth: number, budget: { nodes: number }, issues: Issue[]): void {
  if (++budget.nodes > MAX_FILTER_NODES) {
    if (budget.nodes === MAX_FILTER_NODES + 1) issues.push({ path, message: `a filter has at most ${MAX_FILTER_NODES} conditions` });
    return;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    issues.push({ path, message: 'must be an object: { key, eq | in | exists | gt | gte | lt | lte } or { and | or | not }' });
    return;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  const combinators = keys.filter((key) => key === 'and' || key === 'or' || key === 'not');
  if (combinators.length > 0) {
    if (keys.length !== 1) {
      issues.push({ path, message: `"${combinators[0]}" must be the only property of its object` });
      return;
    }
    if (depth >= MAX_FILTER_DEPTH) {
      issues.push({ path, message: `filters nest at most ${MAX_FILTER_DEPTH} levels deep` });
      return;
    }
    const combinator = combinators[0] as 'and' | 'or' | 'not';
    const operand = record[combinator];
    if (combinator === 'not') return check(operand, [...path, 'not'], depth + 1, budget, issues);
    if (!Array.isArray(operand) || operand.length === 0) {
      issues.push({ path: [...path, combinator], message: 'must be a non-empty array of filters' });
      return;
    }
    operand.forEach((item, index) => check(item, [...path, combinator, index], depth + 1, budget, issues));
    return;
  }
  checkLeaf(record, keys, path, issues);
}

function checkLeaf(record: Record<string, unknown>, keys: string[], path: (string | number)[], issues: Issue[]): void {
  const unknown = keys.filter((key) => key !== 'key' && !(LEAF_TESTS as readonly string[]).includes(key));
  if (unknown.length > 0) {
    issues.push({
      path: [...path, unknown[0]!],
      message: `unknown operator (expected one of key, ${LEAF_TESTS.join(', ')}, and, or, not)`,
    });
    return;
  }
  if (typeof record.key !== 'string' || record.key.length === 0 || record.key.length > MAX_KEY_CHARS) {
    issues.push({ path: [...path, 'key'], message: `must be a metadata key (a string of 1-${MAX_KEY_CHARS} characters)` });
  }
  const tests = keys.filter((key) => key !== 'key');
  const ranges = tests.filter((key): key is RangeOperator => (RANGE_OPERATORS as readonly string[]).includes(key));
  if (tests.length === 0) {
    issues.push({ path, message: 'needs one test: eq, in, exists, or a range (gt, gte, lt, lte)' });
    return;
  }
  if (ranges.length !== tests.length && tests.length > 1) {
    issues.push({ path: [...path, tests[1]!], message: 'one test per condition (combine conditions with "and")' });
    return;
  }
  if (ranges.length > 0) return checkRange(record, ranges, path, issues);
  const test = tests[0]!;
  const operand = record[test];
  if (test === 'exists') {
    if (typeof operand !== 'boolean') issues.push({ path: [...path, 'exists'], message: 'must be true or false' });
  } else if (test === 'eq') {
    if (!isScalar(operand)) issues.push({ path: [...path, 'eq'], message: scalarMessage });
  } else if (!Array.isArray(operand) || operand.length === 0 || operand.length > MAX_IN_VALUES) {
    issues.push({ path: [...path, 'in'], message: `must be an array of 1-${MAX_IN_VALUES} values` });
  } else {
    operand.forEach((item, index) => {
      if (!isScalar(item)) issues.push({ path: [...path, 'in', index], message: scalarMessage });
    });
  }
}

function checkRange(record: Record<string, unknown>, ranges: RangeOperator[], path: (string | number)[], issues: Issue[]): void {
  if (ranges.includes('gt') && ranges.includes('gte')) issues.push({ path: [...path, 'gte'], message: 'gt and gte together' });
  if (ranges.includes('lt') && ranges.includes('lte')) issues.push({ path: [...path, 'lte'], message: 'lt and lte together' });
  let kind: 'number' | 'string' | undefined;
  for (const operator of ranges) {
    const bound = record[operator];
    const boundKind =
      typeof bound === 'number' && Number.isFinite(bound)
        ? 'number'
        : typeof bound === 'string' && ISO_DATE.test(bound)
          ? 'string'
          : undefined;
    if (boundKind === undefined) {
      issues.push({
        path: [...path, operator],
        message: 'must be a finite number or an ISO-8601 UTC date ("2024-05-01" or "2024-05-01T10:00:00Z")',
      });
    } else if (kind !== undefined && kind !== boundKind) {
      issues.push({ path: [...path, operator], message: 'bounds of one range must both be numbers or both be dates' });
    } else {
      kind = boundKind;
    }
  }
}

const scalarMessage = `must be a string (at most ${MAX_STRING_CHARS} characters), a finite number, a boolean or null`;

function isScalar(value: unknown): value is MetadataValue {
  return (
    value === null ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value)) ||
    (typeof value === 'string' && value.length <= MAX_STRING_CHARS)
  );
}

/** The grammar as a zod schema: invalid filters fail with one issue per problem, each at its path. */
export const metadataFilterSchema = z
  // Typed for callers; checked by `check` (zod's unions report "invalid input" without a path).
  .custom<MetadataFilter>(() => true)
  .transform((value: unknown, context): MetadataFilter => {
    const issues: Issue[] = [];
    check(value, [], 0, { nodes: 0 }, issues);
    for (const issue of issues) context.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    return value as MetadataFilter;
  })
  .meta({
    description:
      'A condition on document metadata: {"key": K, "eq": V}, {"key": K, "in": [V, ...]}, {"key": K, "exists": true|false}, ' +
      '{"key": K, "gt"|"gte"|"lt"|"lte": number or ISO-8601 UTC date, ...}, or {"and": [...]}, {"or": [...]}, {"not": {...}}.',
    examples: [{ and: [{ key: 'lang', eq: 'en' }, { key: 'year', gte: 2020 }, { not: { key: 'draft', eq: true } }] }],
  });

/** Whether a document's metadata passes `filter`: the meaning every store implements. */
export function matchesMetadata(filter: MetadataFilter, metadata: Metadata): boolean {
  if ('and' in filter) return filter.and.every((item) => matchesMetadata(item, metadata));
  if ('or' in filter) return filter.or.some((item) => matchesMetadata(item, metadata));
  if ('not' in filter) return !matchesMetadata(filter.not, metadata);
  const present = Object.hasOwn(metadata, filter.key);
  if ('exists' in filter) return present === filter.exists;
  if (!present) return false;
  const value = metadata[filter.key] as MetadataValue;
  if ('eq' in filter) return sameValue(value, filter.eq);
  if ('in' in filter) return filter.in.some((item) => sameValue(value, item));
  return inRange(value, filter);
}

function sameValue(a: MetadataValue, b: MetadataValue): boolean {
  return typeof a === typeof b && a === b;
}

function inRange(value: MetadataValue, range: Partial<Record<RangeOperator, number | string>>): boolean {
  for (const operator of RANGE_OPERATORS) {
    const bound = range[operator];
    if (bound === undefined) continue;
    if (typeof value !== typeof bound) return false;
    const order = typeof bound === 'number' ? (value as number) - bound : compareCodePoints(value as string, bound);
    const passes = operator === 'gt' ? order > 0 : operator === 'gte' ? order >= 0 : operator === 'lt' ? order < 0 : order <= 0;
    if (!passes) return false;
  }
  return true;
}

/**
 * Strings in code point order, which is the byte order of their UTF-8 (SQLite's BINARY collation,
 * Postgres's "C"); JavaScript's `<` compares UTF-16 units, which differs past U+FFFF.
 */
function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}
