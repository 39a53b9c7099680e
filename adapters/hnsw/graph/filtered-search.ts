/**
 * Query planning: plain HNSW search, HNSW search with the filter applied during the graph walk, or
 * an exact scan over the matching labels. The chosen search runs on the calling thread against the
 * native graph the graph thread inserts into (graph-search.ts, ragdesk's binding in
 * adapters/hnsw/native/).
 *
 * Why two filtered paths: the binding reads the filter (each label's datasource and custom id
 * numbers) in C++ during the walk, but a walk still visits candidates until it holds `ef` matches,
 * so it slows down as matches get rarer and, at very low selectivity, walks most of the graph. The
 * exact scan (also in C++) costs one distance per matching label. Below `exactSearchThreshold`
 * matches, by default 98304 / dimensions (256 at 384, 64 at 1536), the scan is used; the value was
 * set where both paths cost about the same on 10-20k vectors, and larger collections make the walk
 * dearer, so it errs towards the walk. If a walk returns fewer than min(topK, matches) hits (the
 * reachable part of the graph ran out of matches), graph-search.ts scans all matches exactly, so a
 * filtered query returns `topK` hits whenever that many match.
 *
 * Filtered recall depends on where the matches lie: at 100k x 384, a filter matching 10% of the
 * entries, all in clusters away from the query, gave recall@10 0.77 at ef=64, 0.88 at 128 and 0.95
 * at 256 (matches near the query: 0.98-1.00). Raise `efSearch` when filters and queries are that
 * far apart.
 */
import type { IndexQuery, RetrievalFilter, ScoredId } from '../../../src/ports/index.js';
import type { Collection } from '../collection/collection.js';
import type { LabelScores } from './graph-search.js';
import { defaultEfSearch } from '../options.js';

export interface SearchSettings {
  /** Lower bound of hnswlib's `ef`; each query uses max(efSearch, topK). Absent: by the collection's size. */
  efSearch?: number | undefined;
  /** Filters matching at most this many labels are answered by an exact scan; default by dimensions. */
  exactSearchThreshold?: number | undefined;
}

/** Where an exact scan (cost ∝ matches x dimensions) stops beating the filtered walk; see above. */
function defaultExactSearchThreshold(dimensions: number): number {
  return Math.max(16, Math.floor(98_304 / dimensions));
}

interface CompiledFilter {
  /** Exact number of live labels that pass. */
  count: number;
  /** Accepted numbers; null: that attribute is not filtered. */
  sources: number[] | null;
  tenants: number[] | null;
}

/** `query.vector` and `query.topK` must already be validated. */
export async function search(collection: Collection, query: IndexQuery, settings: SearchSettings): Promise<ScoredId[]> {
  collection.check();
  if (query.topK === 0 || collection.count === 0) return [];
  const beam = settings.efSearch ?? defaultEfSearch(collection.count);
  const ef = (k: number) => Math.max(beam, k);
  const filter = compileFilter(collection, query.filter);
  if (!filter) {
    const k = Math.min(query.topK, collection.count);
    return hitsOf(collection, await collection.search(query.vector, k, ef(k), null), k);
  }
  if (filter.count === 0) return [];
  const wanted = Math.min(query.topK, filter.count);
  const threshold = settings.exactSearchThreshold ?? defaultExactSearchThreshold(collection.identity.dimensions);
  const exact = filter.count <= threshold;
  const found = await collection.search(query.vector, wanted, ef(wanted), { sources: filter.sources, tenants: filter.tenants, exact });
  return hitsOf(collection, found, wanted);
}

/** Best first, ties by id so equal scores come back in a stable order; labels removed meanwhile are dropped. */
function hitsOf(collection: Collection, found: LabelScores, k: number): ScoredId[] {
  const hits: ScoredId[] = [];
  found.labels.forEach((label, i) => {
    const id = collection.idOf(label);
    if (id !== undefined) hits.push({ id, score: found.scores[i] as number });
  });
  hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return hits.length > k ? hits.slice(0, k) : hits;
}

/** Undefined when the filter restricts nothing (absent or empty lists). */
function compileFilter(collection: Collection, filter: RetrievalFilter | undefined): CompiledFilter | undefined {
  const datasourceIds = filter?.datasourceIds ?? [];
  const customIds = filter?.customIds ?? [];
  if (datasourceIds.length === 0 && customIds.length === 0) return undefined;
  // Ids no live entry has are dropped here: a list left empty this way matches nothing.
  const sources = numbersOf(datasourceIds, (id) => collection.datasourceNumber(id));
  const tenants = numbersOf(customIds, (id) => collection.customIdNumber(id));
  const compiled = (count: number): CompiledFilter => ({
    count,
    sources: datasourceIds.length > 0 ? [...sources] : null,
    tenants: customIds.length > 0 ? [...tenants] : null,
  });
  // A label has one datasource and one custom id, so with one list the counts add up; with both,
  // the matches are counted by a scan.
  if (customIds.length === 0 || datasourceIds.length === 0) {
    let count = 0;
    for (const number of sources) count += collection.datasourceCount(number);
    for (const number of tenants) count += collection.customIdCount(number);
    return compiled(count);
  }
  if (sources.size === 0 || tenants.size === 0) return compiled(0);
  let count = 0;
  for (const label of collection.labels()) {
    if (sources.has(collection.datasourceAt(label)) && tenants.has(collection.customIdAt(label))) count++;
  }
  return compiled(count);
}

function numbersOf(keys: readonly string[], lookup: (key: string) => number): Set<number> {
  const numbers = new Set<number>();
  for (const key of keys) {
    const number = lookup(key);
    if (number >= 0) numbers.add(number);
  }
  return numbers;
}
