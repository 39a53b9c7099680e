/**
 * Pseudo-relevance feedback (RM3): a query's first results suggest words the query did not use.
 * The feedback model weighs each word of the top documents by its share of each document times
 * the document's share of the top scores, keeps the best `terms` words, and mixes them with the
 * query (each query word `1 / |query|`) at `originalWeight` for the query. Weights are scaled so
 * that a query word alone (originalWeight 1) weighs 1, as in a plain search.
 */

/** One feedback document: its stems with counts (stopwords already out), and its score in the first search. */
export interface FeedbackDocument {
  counts: ReadonlyMap<string, number>;
  score: number;
}

export interface FeedbackOptions {
  /** Top documents of the first search taken as relevant. */
  documents: number;
  /** Feedback words kept. */
  terms: number;
  /** Share of the query in the mix, 0..1 (1: no expansion). */
  originalWeight: number;
}

/** The expanded query: distinct stems and their weights, the query's words first. */
export interface WeightedQuery {
  words: string[];
  weights: number[];
}

export function expandQuery(query: readonly string[], documents: readonly FeedbackDocument[], options: FeedbackOptions): WeightedQuery {
  const unchanged = { words: [...query], weights: query.map(() => 1) };
  const used = documents.slice(0, Math.max(0, Math.floor(options.documents)));
  let totalScore = 0;
  for (const document of used) totalScore += Math.max(0, document.score);
  if (query.length === 0 || !(options.originalWeight < 1) || !(options.terms >= 1) || !(totalScore > 0)) return unchanged;
  const model = new Map<string, number>();
  for (const document of used) {
    let length = 0;
    for (const count of document.counts.values()) length += count;
    if (length === 0 || !(document.score > 0)) continue;
    const share = document.score / totalScore;
    for (const [word, count] of document.counts) model.set(word, (model.get(word) ?? 0) + (share * count) / length);
  }
  // Best first, ties by word so the expansion does not depend on map order.
  const kept = [...model].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, Math.floor(options.terms));
  let keptMass = 0;
  for (const [, weight] of kept) keptMass += weight;
  if (!(keptMass > 0)) return unchanged;
  const alpha = Math.max(0, options.originalWeight);
  const mixed = new Map<string, number>();
  for (const word of query) mixed.set(word, alpha / query.length);
  for (const [word, weight] of kept) mixed.set(word, (mixed.get(word) ?? 0) + ((1 - alpha) * weight) / keptMass);
  const words = [...mixed.keys()];
  return { words, weights: words.map((word) => (mixed.get(word) as number) * query.length) };
}
