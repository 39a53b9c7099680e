/**
 * What a search must see that its graph may not hold yet: the vectors of the add ops the graph
 * thread has not answered (queued, or being inserted while the search runs), and the labels those
 * ops and unanswered removals take away from the graph. The search scans the queued vectors exactly
 * and merges them with the graph's hits, so an upsert is searchable as soon as it is queued,
 * however long the inserts behind it take (graph-thread.ts).
 */
import type { GraphRequest } from './graph-protocol.js';

type AddOp = Extract<GraphRequest, { op: 'add' }>;

export interface PendingVectors {
  /** Label → its newest queued vector: `data` from `at`, `dimensions` long. */
  vectors: Map<number, { data: Float32Array; at: number }>;
  /**
   * Labels the graph search skips: every label of a queued add (its point is stale, or half
   * inserted, or the same vector the scan scores) and of a queued removal.
   */
  hidden: Set<number>;
  /** A `create` is still queued: the graph does not exist yet, so it has no hits. */
  unborn: boolean;
}

/**
 * Folds the queued ops, in order, into what the search must add and hide; undefined when one of
 * them must be applied first (a restore or load, or a release).
 */
export function pendingVectors(queued: readonly GraphRequest[]): PendingVectors | undefined {
  const pending: PendingVectors = { vectors: new Map(), hidden: new Set(), unborn: false };
  for (const request of queued) {
    switch (request.op) {
      case 'create':
        pending.unborn = true;
        break;
      case 'add':
        queueAdd(pending, request);
        break;
      case 'remove':
        for (const label of request.labels) {
          pending.vectors.delete(label);
          pending.hidden.add(label);
        }
        break;
      // A restored graph is searched while its vectors arrive: its hits name what it still lacks.
      case 'restore-vectors':
      case 'restore-done':
      case 'write':
        break;
      case 'restore':
      case 'load':
      case 'release':
        return undefined;
    }
  }
  return pending;
}

/** Whether a search must wait for this op's answer (see pendingVectors). */
export function blocksSearch(request: GraphRequest): boolean {
  return request.op === 'restore' || request.op === 'load' || request.op === 'release';
}

function queueAdd(pending: PendingVectors, request: AddOp): void {
  const { labels, vectors } = request;
  const dimensions = labels.length === 0 ? 0 : vectors.length / labels.length;
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i] as number;
    pending.vectors.set(label, { data: vectors, at: i * dimensions });
    pending.hidden.add(label);
  }
}

/**
 * The cosine of `query` with every queued vector that `accepts` passes, as labels and scores
 * (hnswlib's cosine space normalises points on insert; queued ones are not normalised yet).
 */
export function scanPending(
  pending: PendingVectors,
  query: Float32Array,
  accepts: ((label: number) => boolean) | undefined,
): { labels: number[]; scores: number[] } {
  const labels: number[] = [];
  const scores: number[] = [];
  const dimensions = query.length;
  let queryNorm = 0;
  for (let d = 0; d < dimensions; d++) queryNorm += (query[d] as number) * (query[d] as number);
  queryNorm = Math.sqrt(queryNorm);
  for (const [label, { data, at }] of pending.vectors) {
    if (accepts && !accepts(label)) continue;
    let dot = 0;
    let norm = 0;
    for (let d = 0; d < dimensions; d++) {
      const value = data[at + d] as number;
      dot += value * (query[d] as number);
      norm += value * value;
    }
    const denominator = Math.sqrt(norm) * queryNorm;
    labels.push(label);
    scores.push(denominator > 0 ? dot / denominator : 0);
  }
  return { labels, scores };
}
