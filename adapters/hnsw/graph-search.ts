/**
 * The graph thread's half of a search: plain HNSW search, the filtered walk, or the exact scan
 * (filtered-search.ts chooses which and says why), merged with an exact scan of the vectors still
 * queued for the graph (pending-vectors.ts). Results are labels and scores; the index maps labels
 * to ids and orders ties.
 */
import type hnswlib from 'hnswlib-node';
import type { SearchFilter } from './graph-protocol.js';
import { scanPending, type PendingVectors } from './pending-vectors.js';

type Graph = InstanceType<typeof hnswlib.HierarchicalNSW>;

export interface LabelScores {
  labels: Uint32Array;
  scores: Float64Array;
}

interface Hits {
  labels: ArrayLike<number>;
  scores: ArrayLike<number>;
}

/**
 * The `k` best of the graph (none while its `create` is queued) and the queued vectors. Labels in
 * `pending.hidden` are skipped in the graph: their point there is stale or removed.
 */
export function searchGraph(
  graph: Graph | undefined,
  vector: Float32Array,
  k: number,
  ef: number,
  filter: SearchFilter | null,
  pending?: PendingVectors,
): LabelScores {
  const accepts = filter ? acceptor(filter) : undefined;
  const queued = pending ? scanPending(pending, vector, accepts) : { labels: [], scores: [] };
  if (!graph) return best([queued], k);
  const hidden = pending && pending.hidden.size > 0 ? pending.hidden : undefined;
  const visible = hidden ? (label: number) => !hidden.has(label) && (!accepts || accepts(label)) : accepts;
  const point = Array.from(vector);
  let fromGraph: Hits;
  if (!filter) {
    fromGraph = walk(graph, point, k, ef, visible);
  } else if (filter.exact) {
    fromGraph = exact(graph, point, filter, visible as (label: number) => boolean);
  } else {
    fromGraph = walk(graph, point, k, ef, visible);
    // The reachable part of the graph ran out of matches: the scan keeps the promise of k hits.
    if (fromGraph.labels.length + queued.labels.length < k) fromGraph = exact(graph, point, filter, visible as (label: number) => boolean);
  }
  return queued.labels.length === 0 ? packed(fromGraph) : best([fromGraph, queued], k);
}

function walk(graph: Graph, point: number[], k: number, ef: number, accepts?: (label: number) => boolean): Hits {
  // Queued vectors count in the index's k but are not in the graph yet: hnswlib refuses a k above its capacity.
  const wanted = Math.min(k, graph.getMaxElements());
  if (wanted === 0) return { labels: [], scores: [] };
  graph.setEf(ef);
  const { neighbors, distances } = accepts ? graph.searchKnn(point, wanted, accepts) : graph.searchKnn(point, wanted);
  // Cosine distance is 1 - cos, so the similarity is 1 - distance.
  return { labels: neighbors, scores: distances.map((distance) => 1 - distance) };
}

/** Every matching label with its score: hnswlib stores cosine-space points normalised, so a dot product with the unit query is the cosine. */
function exact(graph: Graph, point: number[], filter: SearchFilter, accepts: (label: number) => boolean): Hits {
  const query = unit(point);
  const labels: number[] = [];
  const scores: number[] = [];
  for (let label = 0; label < filter.nextLabel; label++) {
    if (!accepts(label)) continue;
    const stored = pointOf(graph, label);
    if (stored === undefined) continue;
    let score = 0;
    for (let i = 0; i < query.length; i++) score += (query[i] as number) * (stored[i] as number);
    labels.push(label);
    scores.push(score);
  }
  return { labels, scores };
}

function packed(hits: Hits): LabelScores {
  return { labels: Uint32Array.from(hits.labels), scores: Float64Array.from(hits.scores) };
}

/** The `k` best of several hit lists (a label is in one list at most). */
function best(lists: readonly Hits[], k: number): LabelScores {
  const all: { label: number; score: number }[] = [];
  for (const { labels, scores } of lists) {
    for (let i = 0; i < labels.length; i++) all.push({ label: labels[i] as number, score: scores[i] as number });
  }
  all.sort((a, b) => b.score - a.score);
  const kept = all.length > k ? all.slice(0, k) : all;
  return { labels: Uint32Array.from(kept, (hit) => hit.label), scores: Float64Array.from(kept, (hit) => hit.score) };
}

/**
 * The tables are live: a label the main thread has just added reads as present before its insert
 * reaches this thread. A search sent before that upsert does not see it, as if it ran first.
 */
function pointOf(graph: Graph, label: number): number[] | undefined {
  try {
    return graph.getPoint(label);
  } catch {
    return undefined;
  }
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

function unit(point: number[]): number[] {
  const norm = Math.sqrt(point.reduce((sum, value) => sum + value * value, 0));
  return norm > 0 ? point.map((value) => value / norm) : point;
}
