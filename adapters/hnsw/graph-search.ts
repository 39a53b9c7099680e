/**
 * The graph thread's half of a search: plain HNSW search, the filtered walk, or the exact scan
 * (filtered-search.ts chooses which and says why). Results are labels and scores; the index maps
 * labels to ids and orders ties.
 */
import type hnswlib from 'hnswlib-node';
import type { SearchFilter } from './graph-protocol.js';

type Graph = InstanceType<typeof hnswlib.HierarchicalNSW>;

export interface LabelScores {
  labels: Uint32Array;
  scores: Float64Array;
}

export function searchGraph(graph: Graph, vector: Float32Array, k: number, ef: number, filter: SearchFilter | null): LabelScores {
  const point = Array.from(vector);
  if (!filter) return walk(graph, point, k, ef);
  const accepts = acceptor(filter);
  if (filter.exact) return exact(graph, point, filter, accepts);
  const hits = walk(graph, point, k, ef, accepts);
  // The reachable part of the graph ran out of matches: the scan keeps the promise of k hits.
  return hits.labels.length >= k ? hits : exact(graph, point, filter, accepts);
}

function walk(graph: Graph, point: number[], k: number, ef: number, accepts?: (label: number) => boolean): LabelScores {
  graph.setEf(ef);
  const { neighbors, distances } = accepts ? graph.searchKnn(point, k, accepts) : graph.searchKnn(point, k);
  // Cosine distance is 1 - cos, so the similarity is 1 - distance.
  return { labels: Uint32Array.from(neighbors), scores: Float64Array.from(distances, (distance) => 1 - distance) };
}

/** Every matching label with its score: hnswlib stores cosine-space points normalised, so a dot product with the unit query is the cosine. */
function exact(graph: Graph, point: number[], filter: SearchFilter, accepts: (label: number) => boolean): LabelScores {
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
  return { labels: Uint32Array.from(labels), scores: Float64Array.from(scores) };
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
