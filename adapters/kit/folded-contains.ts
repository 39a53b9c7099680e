/**
 * The text filters of the store pages (`nameContains`, `textContains`): "contains, ignoring case",
 * folded like the core's fallback (`toLocaleLowerCase` of both sides), so a store that filters in
 * JavaScript answers exactly as the core did before stores paged.
 */
export function foldedNeedle(needle: string | undefined): string | undefined {
  return needle === undefined || needle === '' ? undefined : needle.toLocaleLowerCase();
}

export function containsFolded(text: string, folded: string): boolean {
  return text.toLocaleLowerCase().includes(folded);
}

/** `offset`/`limit` as whole non-negative numbers (a store page never throws on odd paging input). */
export function pageBounds(query: { offset: number; limit: number }): { offset: number; limit: number } {
  return { offset: Math.max(0, Math.floor(query.offset) || 0), limit: Math.max(0, Math.floor(query.limit) || 0) };
}
