/**
 * Which query terms a lexical search uses, chosen from each term's document frequency: the same
 * cost model as the SQLite adapter's (adapters may not import each other, so it is restated here).
 *
 * Why: ranking costs work per matching row (Postgres reads each candidate's tsvector to rank it),
 * so one common word in a query means ranking most of the datastore. Searching only the rarest
 * terms bounds that work; the words dropped are the frequent ones, whose idf is the lowest.
 */

/** Cost limits of one search. */
export interface LexicalSearchLimits {
  /** At most this many terms are OR'ed (the rarest ones). */
  maxTerms: number;
  /** The chosen terms' document frequencies add up to at most this many rows (roughly the rows ranked). */
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

/** A query term, its tsquery text and how many chunks of the datastore match it (capped above the budget). */
export interface PlannedTerm {
  term: string;
  query: string;
  frequency: number;
}

/** One search to run: its terms, all required (`and`) or any (`or`). */
export interface SearchPlan {
  terms: PlannedTerm[];
  mode: 'and' | 'or';
}

/**
 * Searches to try in order until one finds rows. Usually one: the rarest terms within the budget,
 * OR'ed. When even the rarest term is common, OR-ing it would rank most of the datastore, so the
 * plan asks for rows holding all of the (up to `maxCommonTerms`) common terms first, then fewer,
 * and the rarest alone last. Terms that occur nowhere are left out.
 */
export function planSearches(terms: readonly PlannedTerm[], limits: LexicalSearchLimits): SearchPlan[] {
  const present = terms
    .map((entry, order) => ({ entry, order }))
    .filter(({ entry }) => entry.frequency > 0)
    .sort((a, b) => a.entry.frequency - b.entry.frequency || a.order - b.order)
    .map(({ entry }) => entry);
  const rarest = present[0];
  if (rarest === undefined) return [];
  if (rarest.frequency > limits.postingBudget) {
    const common = present.slice(0, Math.max(1, limits.maxCommonTerms));
    const plans: SearchPlan[] = [];
    for (let size = common.length; size >= 1; size -= 1) plans.push({ terms: common.slice(0, size), mode: 'and' });
    return plans;
  }
  const chosen: PlannedTerm[] = [];
  let postings = 0;
  for (const entry of present) {
    if (chosen.length >= limits.maxTerms || postings + entry.frequency > limits.postingBudget) break;
    chosen.push(entry);
    postings += entry.frequency;
  }
  return [{ terms: chosen, mode: 'or' }];
}
