/**
 * Which FTS5 expressions a lexical search runs, chosen from each term's document frequency.
 *
 * Why: FTS5 computes bm25 for every row that matches any OR'ed term, ~2-4 µs a row on
 * abstract-sized chunks, so one common word in a query means scoring tens of thousands of rows at
 * 100k chunks (~60 ms p50 measured with every term, see benchmarks/lexical-search.ts). Searching
 * only the rarest terms bounds that work. The words dropped are the frequent ones, whose idf is the
 * lowest, but they do carry signal: at 100k chunks nDCG@10 fell from 0.59 (every term) to 0.44 with
 * the default budget, while on 5k chunks (where the budget rarely binds) it stayed at 0.69.
 */

/** Cost limits of one search. */
export interface LexicalSearchLimits {
  /** At most this many terms are OR'ed (the rarest ones). */
  maxTerms: number;
  /**
   * The chosen terms' document frequencies add up to at most this many rows: roughly the rows
   * bm25 scores, so the latency bound (~2.5 µs each). Terms more frequent than this are "common".
   */
  postingBudget: number;
  /** Query terms considered (the first ones) before choosing. */
  maxQueryTerms: number;
  /** When every term is common, rows holding all of the first this-many are searched instead. */
  maxCommonTerms: number;
}

export const DEFAULT_LEXICAL_LIMITS: LexicalSearchLimits = {
  maxTerms: 8,
  postingBudget: 2_000,
  maxQueryTerms: 32,
  maxCommonTerms: 3,
};

/** A query term and how many chunks hold it (capped just above the budget). */
export interface TermFrequency {
  term: string;
  frequency: number;
}

/** A term as an FTS5 string: double quotes make every keyword (AND, NEAR, ...) and symbol literal. */
export function quoteTerm(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/**
 * MATCH expressions to try in order until one finds rows. Usually one: the rarest terms within the
 * budget, OR'ed. When even the rarest term is common, OR-ing it would score most of the corpus, so
 * the plan asks for rows holding all of the (up to `maxCommonTerms`) common terms first, then
 * fewer of them, and the rarest alone last. Terms that occur nowhere are left out.
 */
export function planExpressions(terms: readonly TermFrequency[], limits: LexicalSearchLimits): string[] {
  const present = terms
    .map((entry, order) => ({ ...entry, order }))
    .filter((entry) => entry.frequency > 0)
    .sort((a, b) => a.frequency - b.frequency || a.order - b.order);
  const rarest = present[0];
  if (rarest === undefined) return [];
  if (rarest.frequency > limits.postingBudget) {
    const common = present.slice(0, Math.max(1, limits.maxCommonTerms)).map((entry) => quoteTerm(entry.term));
    const plans: string[] = [];
    for (let size = common.length; size >= 1; size -= 1) plans.push(common.slice(0, size).join(' AND '));
    return plans;
  }
  const chosen: string[] = [];
  let postings = 0;
  for (const entry of present) {
    if (chosen.length >= limits.maxTerms || postings + entry.frequency > limits.postingBudget) break;
    chosen.push(quoteTerm(entry.term));
    postings += entry.frequency;
  }
  return [chosen.join(' OR ')];
}
