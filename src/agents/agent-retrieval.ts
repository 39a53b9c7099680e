import type { RagdeskContext } from '../context.js';
import { retrieve } from '../datastores/retrieval.js';
import type { DocumentFragment } from '../datastores/fragment.js';
import { assertCanRerank, rerankFragments, type RerankInput, type RerankReport } from '../datastores/rerank.js';
import type { DatastoreRecord } from '../ports/records.js';
import type { FiltersInput } from '../validation.js';

/** Same constant as the fusion inside a datastore, so one datastore's order is kept as it is. */
const RRF_K = 60;

export interface AgentRetrieval {
  fragments: DocumentFragment[];
  /** Datastores the agent names that no longer exist. */
  missingDatastoreIds: string[];
  /** What reranking did, when it ran. */
  rerank?: RerankReport;
}

/**
 * Hybrid retrieval over every datastore of the agent, merged by reciprocal rank: scores of different
 * datastores are not comparable (each fusion is relative to its own lists), ranks are. With
 * `rerank`, the merged best `topN` are ordered by the reranker, whose scores are comparable across
 * datastores, and the best `topK` of its order are kept.
 */
export async function retrieveForAgent(
  context: RagdeskContext,
  datastoreIds: readonly string[],
  query: string,
  topK: number,
  filters: FiltersInput | undefined,
  rerank?: RerankInput,
  signal?: AbortSignal,
): Promise<AgentRetrieval> {
  if (rerank) {
    assertCanRerank(context);
    const first = await retrieveForAgent(context, datastoreIds, query, Math.max(topK, rerank.topN), filters);
    const reranked = await rerankFragments(context, query, first.fragments.slice(0, rerank.topN), topK, signal);
    return { fragments: reranked.fragments, missingDatastoreIds: first.missingDatastoreIds, rerank: reranked.report };
  }
  const records = await Promise.all(datastoreIds.map((id) => context.retrieval.getDatastore(id)));
  const present = records.filter((record): record is DatastoreRecord => record !== null);
  const missingDatastoreIds = datastoreIds.filter((_, i) => records[i] === null);
  const lists = await Promise.all(present.map((datastore) => retrieve(context, datastore, { query, topK, filters, mode: 'hybrid' })));
  if (lists.length === 1) return { fragments: lists[0]!, missingDatastoreIds };
  const merged = lists
    .flatMap((list) => list.map((fragment, rank) => ({ fragment, fused: 1 / (RRF_K + rank + 1) })))
    .sort((a, b) => b.fused - a.fused)
    .slice(0, topK)
    // Ordered by rank across datastores; each keeps its own 0..1 similarity `score`.
    .map(({ fragment }) => fragment);
  return { fragments: merged, missingDatastoreIds };
}
