import type { ScoredId } from '../../src/ports/records.js';

/**
 * The k best scores offered so far (a min-heap: its root is the k-th best, the threshold), and
 * every document offered at or above the threshold of its time: a superset of the top k with all
 * its ties, from which `results` picks the k by score, then id.
 */
export class TopScores {
  /** The k-th best score so far; -Infinity until k documents were offered. */
  threshold = Number.NEGATIVE_INFINITY;
  private readonly heap: Float64Array;
  private count = 0;
  private slots: number[] = [];
  private scores: number[] = [];
  /** Kept documents that trigger dropping those below the threshold (they pile up on long lists). */
  private limit: number;

  constructor(private readonly k: number) {
    this.heap = new Float64Array(k);
    this.limit = Math.max(256, 4 * k);
  }

  offer(slot: number, score: number): void {
    if (this.count < this.k) {
      this.push(score);
      if (this.count === this.k) this.threshold = this.heap[0] as number;
    } else if (score < this.threshold) {
      return;
    } else if (score > this.threshold) {
      this.replaceRoot(score);
      this.threshold = this.heap[0] as number;
    }
    if (this.slots.length >= this.limit) this.dropBelowThreshold();
    this.slots.push(slot);
    this.scores.push(score);
  }

  /** The k best, best first, equal scores by id (the smallest ids among those tied at the cut). */
  results(idOf: (slot: number) => string): ScoredId[] {
    const { slots, scores } = this;
    const found: ScoredId[] = [];
    const ties: ScoredId[] = [];
    const cut = this.count < this.k ? Number.NEGATIVE_INFINITY : this.threshold;
    for (let i = 0; i < slots.length; i++) {
      const score = scores[i] as number;
      if (score > cut) found.push({ id: idOf(slots[i] as number), score });
      else if (score === cut) ties.push({ id: idOf(slots[i] as number), score });
    }
    // Often thousands of ties at the cut (a query of one common word): only the few needed are kept sorted.
    const wanted = this.k - found.length;
    const chosen: ScoredId[] = [];
    for (const tie of ties) {
      if (chosen.length === wanted && tie.id >= (chosen[wanted - 1] as ScoredId).id) continue;
      let at = chosen.length;
      while (at > 0 && (chosen[at - 1] as ScoredId).id > tie.id) at--;
      chosen.splice(at, 0, tie);
      if (chosen.length > wanted) chosen.pop();
    }
    return found.concat(chosen).sort(byScoreThenId);
  }

  private dropBelowThreshold(): void {
    let kept = 0;
    for (let i = 0; i < this.slots.length; i++) {
      if ((this.scores[i] as number) < this.threshold) continue;
      this.slots[kept] = this.slots[i] as number;
      this.scores[kept] = this.scores[i] as number;
      kept += 1;
    }
    this.slots.length = kept;
    this.scores.length = kept;
    this.limit = Math.max(this.limit, 2 * kept);
  }

  private push(score: number): void {
    const heap = this.heap;
    let at = this.count++;
    while (at > 0) {
      const parent = (at - 1) >>> 1;
      if ((heap[parent] as number) <= score) break;
      heap[at] = heap[parent] as number;
      at = parent;
    }
    heap[at] = score;
  }

  private replaceRoot(score: number): void {
    const heap = this.heap;
    const count = this.count;
    let at = 0;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= count) break;
      if (child + 1 < count && (heap[child + 1] as number) < (heap[child] as number)) child += 1;
      if ((heap[child] as number) >= score) break;
      heap[at] = heap[child] as number;
      at = child;
    }
    heap[at] = score;
  }
}

/** Best first; equal scores by id, so results are deterministic. */
function byScoreThenId(x: ScoredId, y: ScoredId): number {
  return y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
}
