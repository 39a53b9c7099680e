/**
 * The measurements every peer goes through: ingest timing, retrieval quality on BEIR qrels and
 * query latency, each under a time budget so a very slow mode reports on fewer queries (and says
 * how many) instead of stalling the run.
 */
import { evaluate, type BeirQuery, type Qrels, type Ranking, type Scores } from '../beir.js';
import { latencySummary } from '../lib/report.js';
import type { Peer, PeerMode } from './peer.js';
import { foldToDocuments } from './shared.js';

export interface QualityResult extends Scores {
  /** Queries evaluated (all of them unless the time budget ran out: then the first N in file order). */
  queries: number;
  ofQueries: number;
}

export interface LatencyResult {
  p50: number;
  p99: number;
  mean: number;
  /**
   * CPU time of this process per query (user + system, all threads), ms. Unlike wall time it hardly
   * moves when other jobs load the machine, so it is the steadier basis for comparing peers here.
   */
  cpuMs: number;
  queries: number;
}

/** Mean nDCG@10 / Recall@100 / MRR@10 over the judged queries, top 100 chunks folded to documents. */
export async function measureQuality(
  peer: Peer,
  mode: PeerMode,
  queries: readonly BeirQuery[],
  qrels: Qrels,
  budgetMs: number,
): Promise<QualityResult> {
  const rankings = new Map<string, Ranking>();
  const started = performance.now();
  const evaluated: string[] = [];
  for (const query of queries) {
    rankings.set(query.id, foldToDocuments(await peer.search(query.text, mode, 100)).slice(0, 100));
    evaluated.push(query.id);
    if (performance.now() - started > budgetMs) break;
  }
  return { ...evaluate(rankings, qrels, evaluated), queries: evaluated.length, ofQueries: queries.length };
}

/** Top-10 latency from call to answer (query embedding included), after `warmup` unmeasured calls. */
export async function measureLatency(
  peer: Peer,
  mode: PeerMode,
  queries: readonly string[],
  count: number,
  budgetMs: number,
  warmup = 10,
): Promise<LatencyResult> {
  const warmStarted = performance.now();
  for (const query of queries.slice(0, warmup)) {
    await peer.search(query, mode, 10);
    if (performance.now() - warmStarted > budgetMs / 4) break;
  }
  const samples: number[] = [];
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const query = queries[i % queries.length] as string;
    const t = performance.now();
    await peer.search(query, mode, 10);
    samples.push(performance.now() - t);
    // At least 3 samples, however slow the mode.
    if (samples.length >= 3 && performance.now() - started > budgetMs) break;
  }
  const used = process.cpuUsage(cpu);
  return { ...latencySummary(samples), cpuMs: (used.user + used.system) / 1000 / samples.length, queries: samples.length };
}

/** Peak resident set size of this process so far, MiB. */
export function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/** CPU seconds (user + system, all threads) of this process since `since`. */
export function cpuSecondsSince(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
}

export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
