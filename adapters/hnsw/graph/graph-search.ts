/**
 * A search of one graph: plain HNSW search, the filtered walk, or the exact scan
 * (filtered-search.ts chooses which and says why), merged with an exact scan of the vectors still
 * queued for the graph (pending-vectors.ts). Results are labels and scores; the index maps labels
 * to ids and orders ties.
 */
import type { NativeFilter, NativeGraph } from '../binding/native-graph.js';
import { scanPending, type PendingVectors } from './pending-vectors.js';

/**
 * Label attributes, read by the native search's filter: a label's datasource and custom id
 * numbers, -1 for a removed label (datasource) or none (custom id).
 */
export interface LabelTables {
  source: Int32Array;
  tenant: Int32Array;
}

export interface SearchFilter {
  /** Datasource numbers accepted; null: any. */
  sources: number[] | null;
  /** Custom id numbers accepted; null: any. */
  tenants: number[] | null;
  /** Walk the graph with the filter, or scan the matching labels exactly. */
  exact: boolean;
  /** Live labels are below this. */
  nextLabel: number;
  tables: LabelTables;
}

export interface LabelScores {
  labels: Uint32Array;
  scores: Float64Array;
  /** Labels whose vector the graph still waits for (a restore in progress): the hits are not final. */
  missing?: Uint32Array;
}

interface Hits {
  labels: ArrayLike<number>;
  scores: ArrayLike<number>;
}

/**
 * The `k` best of the graph (none while its `create` is queued) and the queued vectors. Labels in
 * `pending.hidden` are skipped in the graph: their point there is stale, removed, or may be one the
 * thread is inserting at this moment.
 */
export function searchGraph(
  graph: NativeGraph | undefined,
  vector: Float32Array,
  k: number,
  ef: number,
  filter: SearchFilter | null,
  pending?: PendingVectors,
): LabelScores {
  const queued = pending ? scanPending(pending, vector, filter ? acceptor(filter) : undefined) : { labels: [], scores: [] };
  if (!graph) return best([queued], k);
  const hidden = pending && pending.hidden.size > 0 ? Uint32Array.from(pending.hidden) : null;
  const tables = filter ? nativeFilter(filter) : null;
  let fromGraph: LabelScores;
  if (tables && filter?.exact) {
    fromGraph = graph.exact(vector, tables, hidden);
  } else {
    fromGraph = walk(graph, vector, k, ef, tables, hidden);
    // The reachable part of the graph ran out of matches: the scan keeps the promise of k hits.
    if (tables && !fromGraph.missing && fromGraph.labels.length + queued.labels.length < k) fromGraph = graph.exact(vector, tables, hidden);
  }
  if (fromGraph.missing) return fromGraph;
  return queued.labels.length === 0 ? fromGraph : best([fromGraph, queued], k);
}

function walk(
  graph: NativeGraph,
  vector: Float32Array,
  k: number,
  ef: number,
  filter: NativeFilter | null,
  hidden: Uint32Array | null,
): LabelScores {
  // Queued vectors count in the index's k but are not in the graph yet: hnswlib refuses a k above its capacity.
  const wanted = Math.min(k, graph.capacity());
  if (wanted === 0) return { labels: new Uint32Array(0), scores: new Float64Array(0) };
  return graph.search(vector, wanted, ef, filter, hidden);
}

/**
 * The tables are live: a label added by an upsert reads as present at once, while its vector is
 * still queued; the search hides it from the graph and scores it in the queue (pending-vectors.ts).
 */
function nativeFilter(filter: SearchFilter): NativeFilter {
  return {
    source: filter.tables.source,
    tenant: filter.tables.tenant,
    sources: filter.sources === null ? null : Int32Array.from(filter.sources),
    tenants: filter.tenants === null ? null : Int32Array.from(filter.tenants),
    nextLabel: filter.nextLabel,
  };
}

/** The `k` best of several hit lists (a label is in one list at most: the graph's search hides queued labels). */
function best(lists: readonly Hits[], k: number): LabelScores {
  const all: { label: number; score: number }[] = [];
  for (const { labels, scores } of lists) {
    for (let i = 0; i < labels.length; i++) all.push({ label: labels[i] as number, score: scores[i] as number });
  }
  all.sort((a, b) => b.score - a.score);
  const kept = all.length > k ? all.slice(0, k) : all;
  return { labels: Uint32Array.from(kept, (hit) => hit.label), scores: Float64Array.from(kept, (hit) => hit.score) };
}

/** A removed label reads -1 as its datasource, so it never passes. */
function acceptor(filter: SearchFilter): (label: number) => boolean {
  const { source, tenant } = filter.tables;
  const sources = filter.sources === null ? null : new Set(filter.sources);
  const tenants = filter.tenants === null ? null : new Set(filter.tenants);
  return (label) => {
    if (label >= filter.nextLabel) return false;
    const from = source[label] as number;
    if (from < 0) return false;
    if (sources !== null && !sources.has(from)) return false;
    return tenants === null || tenants.has(tenant[label] as number);
  };
}
