import { nextTurn } from '../../../src/util/next-turn.js';
import { lendVectors, type RestoreSource } from '../files/restore.js';
import type { GraphKey } from '../graph/graph-protocol.js';
import type { LabelScores, SearchFilter } from '../graph/graph-search.js';
import type { GraphThread } from '../graph/graph-thread.js';
import type { LabelTable } from './label-table.js';

/**
 * Fetch-and-search rounds a search may take while a restore fills its graph (each round's walk
 * reaches further); ~10-30 at 100k chunks. Past it, the search waits for the store's pass.
 */
const MAX_LENDING_ROUNDS = 100;

/** While a restore's vectors are still arriving (restore.ts): how searches get theirs, and the end of the pass. */
export interface Filling {
  vectorsOf: RestoreSource['vectorsOf'];
  done: Promise<void>;
}

/** The graph a search runs on, and what the collection knows while a restore fills it. */
export interface SearchedGraph {
  thread: GraphThread;
  key: GraphKey;
  dimensions: number;
  labels: LabelTable;
  /** The restore in progress, read anew each round (it ends while a search waits). */
  filling(): Filling | undefined;
}

/**
 * Labels and scores from the graph after every change made before the call. While a restore's
 * vectors arrive, a search the graph cannot finish (its walk reached points without their vector)
 * fetches those from the store, lends them to the graph and searches again; the answer is the one
 * the whole graph gives. Without a way to fetch, or when fetching stops helping, it waits for the
 * store's pass instead.
 */
export async function searchWhileFilling(
  graph: SearchedGraph,
  vector: Float32Array,
  k: number,
  ef: number,
  filter: Omit<SearchFilter, 'nextLabel' | 'tables'> | null,
): Promise<LabelScores> {
  const { thread, key, labels } = graph;
  const tables = labels.tables;
  // The store's pass reads a page per turn of the event loop; a caller that queries in a tight
  // loop never gives it one (bench:scale's 1,000 queries after a reopen all ran before it, at
  // twice the usual p50). Each search while it lasts lets it read one page first.
  if (graph.filling() !== undefined) await nextTurn();
  for (let round = 0; ; round++) {
    const found = await thread.search(key, vector, k, ef, filter && { ...filter, nextLabel: labels.nextLabel, tables });
    if (found.missing === undefined) return found;
    const filling = graph.filling();
    const lent =
      filling?.vectorsOf !== undefined && round < MAX_LENDING_ROUNDS
        ? await lendVectors(thread, key, graph.dimensions, found.missing, (label) => labels.idOf(label), filling.vectorsOf)
        : 0;
    if (lent === 0) await (graph.filling()?.done ?? Promise.resolve());
  }
}
