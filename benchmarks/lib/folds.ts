/**
 * Cross-validation folds: a seeded shuffle, then round-robin, so folds are of equal size and the
 * same on every run (bench:fusion and bench:rerank-cv split the queries alike).
 */
export function folds<T>(items: readonly T[], count: number, seed: number): T[][] {
  let state = seed >>> 0;
  const random = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const order = items.map((item) => ({ item, key: random() })).sort((a, b) => a.key - b.key);
  const result: T[][] = Array.from({ length: count }, () => []);
  order.forEach(({ item }, i) => (result[i % count] as T[]).push(item));
  return result;
}
