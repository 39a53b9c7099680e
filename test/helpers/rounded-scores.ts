/**
 * A value with every number rounded to 6 decimals, for comparing two answers to one query: a hit
 * scored by the exact scan of vectors the graph thread has not inserted yet, and the same hit
 * scored by the graph's kernel a moment later, differ in the 8th decimal.
 */
export function roundedScores<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (_key, item: unknown) => (typeof item === 'number' ? Math.round(item * 1e6) / 1e6 : item))) as T;
}
