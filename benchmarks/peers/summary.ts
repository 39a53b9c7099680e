/**
 * Turns child results into the published figures: medians over repeats, text tables for the
 * console, the markdown page (benchmarks/results/peers.md) and the scaling chart.
 */
import type { PeerInfo, PeerMode } from './peer.js';
import type { ChildResult, ScalingResult, ScifactResult, Unavailable } from './results.js';
import { chartSvg, type Series } from './svg.js';

interface ModeSummary {
  mode: PeerMode;
  ndcg10: number;
  recall100: number;
  mrr10: number;
  qualityQueries: number;
  ofQueries: number;
  p50: number;
  p99: number;
  mean: number;
  cpuMs: number;
  latencyQueries: number;
}

export interface PeerSummary {
  run: 'local' | 'shared';
  info: PeerInfo;
  unavailable: string | null;
  repeats: number;
  documents: number;
  chunks: number;
  ingestSeconds: number;
  chunksPerSecond: number;
  ingestCpuSeconds: number;
  /** Until the background indexing after the ingest was done too (the ingest time for most peers). */
  settledSeconds: number;
  /** Lowest and highest 1-minute load average seen by this peer's children. */
  loadRange: [number, number];
  baselineRssMiB: number;
  peakRssMiB: number;
  diskBytes: number | null;
  persistMs: number;
  modes: ModeSummary[];
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Medians of every timing and size over the repeats of one peer in one run (quality is deterministic). */
export function summarise(run: 'local' | 'shared', results: readonly (ScifactResult | Unavailable)[]): PeerSummary {
  const first = results[0];
  if (!first) throw new Error('no results to summarise');
  if (first.kind === 'unavailable') {
    return {
      run,
      info: first.info,
      unavailable: first.reason,
      repeats: 0,
      documents: 0,
      chunks: 0,
      ingestSeconds: Number.NaN,
      chunksPerSecond: Number.NaN,
      ingestCpuSeconds: Number.NaN,
      settledSeconds: Number.NaN,
      loadRange: [Number.NaN, Number.NaN],
      baselineRssMiB: Number.NaN,
      peakRssMiB: Number.NaN,
      diskBytes: null,
      persistMs: 0,
      modes: [],
    };
  }
  const runs = results.filter((result): result is ScifactResult => result.kind === 'scifact');
  const ingestSeconds = median(runs.map((result) => result.ingestSeconds));
  const disk = runs.map((result) => result.diskBytes).filter((bytes): bytes is number => bytes !== null);
  return {
    run,
    info: first.info,
    unavailable: null,
    repeats: runs.length,
    documents: first.documents,
    chunks: first.chunks,
    ingestSeconds,
    chunksPerSecond: first.chunks / ingestSeconds,
    ingestCpuSeconds: median(runs.map((result) => result.ingestCpuSeconds)),
    // Results written before the field existed: nothing ran after their ingest.
    settledSeconds: median(runs.map((result) => result.settledSeconds ?? result.ingestSeconds)),
    loadRange: [Math.min(...runs.flatMap((result) => result.loadAverage)), Math.max(...runs.flatMap((result) => result.loadAverage))],
    baselineRssMiB: median(runs.map((result) => result.baselineRssMiB)),
    peakRssMiB: median(runs.map((result) => result.peakRssMiB)),
    diskBytes: disk.length === 0 ? null : median(disk),
    persistMs: median(runs.map((result) => result.persistMs)),
    modes: first.modes.map((mode) => {
      const all = runs
        .map((result) => result.modes.find((candidate) => candidate.mode === mode.mode))
        .filter((entry) => entry !== undefined);
      return {
        mode: mode.mode,
        ndcg10: mode.quality.ndcg10,
        recall100: mode.quality.recall100,
        mrr10: mode.quality.mrr10,
        qualityQueries: mode.quality.queries,
        ofQueries: mode.quality.ofQueries,
        p50: median(all.map((entry) => entry.latency.p50)),
        p99: median(all.map((entry) => entry.latency.p99)),
        mean: median(all.map((entry) => entry.latency.mean)),
        cpuMs: median(all.map((entry) => entry.latency.cpuMs)),
        latencyQueries: mode.latency.queries,
      };
    }),
  };
}

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
const ms = (value: number) =>
  !Number.isFinite(value) ? '—' : value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
const mib = (bytes: number | null) => (bytes === null ? 'in memory only' : `${(bytes / 2 ** 20).toFixed(1)} MiB`);
/** 2 decimals near 1; whole numbers from 10; below 0.1 as a fraction ("1/250x"), which stays readable. */
const ratio = (value: number) => {
  if (!Number.isFinite(value) || value <= 0) return '—';
  if (value >= 10) return `${value.toFixed(0)}x`;
  if (value >= 0.1) return `${value.toFixed(2)}x`;
  return `1/${(1 / value).toFixed(0)}x`;
};

function storageNote(info: PeerInfo, bytes: number | null): string {
  if (info.storage === 'memory') return 'in memory only';
  if (info.storage === 'manual') return `${mib(bytes)} (saved by the caller)`;
  return mib(bytes);
}

export function peerRows(summaries: readonly PeerSummary[]): Record<string, string | number>[] {
  return summaries.map((summary) =>
    summary.unavailable
      ? {
          peer: summary.info.label,
          chunks: '—',
          'ingest s': '—',
          'indexed s': '—',
          'ingest CPU s': '—',
          'chunks/s': '—',
          'peak RSS MiB': '—',
          'on disk': 'not measured: not installable',
          load: '—',
        }
      : {
          peer: summary.info.label,
          chunks: summary.chunks,
          'ingest s': fixed(summary.ingestSeconds, 1),
          'indexed s': fixed(summary.settledSeconds, 1),
          'ingest CPU s': fixed(summary.ingestCpuSeconds, 1),
          'chunks/s': fixed(summary.chunksPerSecond, 0),
          'peak RSS MiB': `${fixed(summary.peakRssMiB, 0)} (base ${fixed(summary.baselineRssMiB, 0)})`,
          'on disk': storageNote(summary.info, summary.diskBytes),
          load: `${fixed(summary.loadRange[0], 1)}–${fixed(summary.loadRange[1], 1)}`,
        },
  );
}

export function modeRows(summaries: readonly PeerSummary[]): Record<string, string | number>[] {
  return summaries.flatMap((summary) =>
    summary.unavailable
      ? [
          {
            peer: summary.info.label,
            mode: summary.info.modes.join(', '),
            'nDCG@10': '—',
            'Recall@100': '—',
            'p50 ms': '—',
            'p99 ms': '—',
            'CPU ms/query': '—',
            queries: 'not installable',
          },
        ]
      : summary.modes.map((mode) => ({
          peer: summary.info.label,
          mode: mode.mode,
          'nDCG@10': fixed(mode.ndcg10, 3),
          'Recall@100': fixed(mode.recall100, 3),
          'p50 ms': ms(mode.p50),
          'p99 ms': ms(mode.p99),
          'CPU ms/query': ms(mode.cpuMs),
          queries:
            mode.qualityQueries === mode.ofQueries
              ? `${mode.ofQueries}`
              : `first ${mode.qualityQueries} of ${mode.ofQueries} (time budget)`,
        })),
  );
}

/**
 * ragdesk against each other peer in the same run: time and size ratios as ragdesk ÷ peer (below 1:
 * ragdesk is faster or smaller), quality as a difference, latency per mode the peer also has.
 */
export function ratioRows(summaries: readonly PeerSummary[]): Record<string, string | number>[] {
  const ours = summaries.find((summary) => summary.info.id === 'ragdesk' && !summary.unavailable);
  if (!ours) return [];
  const rows: Record<string, string | number>[] = [];
  for (const peer of summaries) {
    if (peer === ours || peer.unavailable) continue;
    for (const mode of peer.modes) {
      const mine = ours.modes.find((candidate) => candidate.mode === mode.mode);
      if (!mine) continue;
      rows.push({
        'vs peer': peer.info.label,
        mode: mode.mode,
        'ingest time': ratio(ours.ingestSeconds / peer.ingestSeconds),
        'ingest CPU': ratio(ours.ingestCpuSeconds / peer.ingestCpuSeconds),
        p50: ratio(mine.p50 / mode.p50),
        p99: ratio(mine.p99 / mode.p99),
        'CPU/query': ratio(mine.cpuMs / mode.cpuMs),
        'peak RSS': ratio(ours.peakRssMiB / peer.peakRssMiB),
        'on disk': peer.diskBytes === null || ours.diskBytes === null ? '—' : ratio(ours.diskBytes / peer.diskBytes),
        'nDCG@10 diff': `${mine.ndcg10 - mode.ndcg10 >= 0 ? '+' : ''}${fixed(mine.ndcg10 - mode.ndcg10, 3)}`,
      });
    }
  }
  return rows;
}

export function markdownTable(rows: readonly Record<string, string | number>[]): string {
  const first = rows[0];
  if (!first) return '';
  const columns = Object.keys(first);
  const line = (cells: readonly (string | number | undefined)[]) => `| ${cells.map((cell) => String(cell ?? '')).join(' | ')} |`;
  return [line(columns), line(columns.map(() => '---')), ...rows.map((row) => line(columns.map((column) => row[column])))].join('\n');
}

export function scalingRows(results: readonly ScalingResult[]): Record<string, string | number>[] {
  return results.flatMap((result) =>
    result.points.flatMap((point) =>
      Object.entries(point.latency).map(([mode, latency]) => ({
        peer: result.info.label,
        chunks: point.chunks,
        'chunks/s': fixed(point.chunksPerSecond, 0),
        'ingest CPU s': fixed(point.ingestCpuSeconds, 1),
        mode,
        'p50 ms': ms(latency?.p50 ?? Number.NaN),
        'p99 ms': ms(latency?.p99 ?? Number.NaN),
        'CPU ms/query': ms(latency?.cpuMs ?? Number.NaN),
        'peak RSS MiB': fixed(point.peakRssMiB, 0),
      })),
    ),
  );
}

/** Ingest rate, vector-query p50, and keyword/hybrid p50 against corpus size. */
export function scalingChart(results: readonly ScalingResult[], unavailable: readonly Unavailable[], notes: readonly string[]): string {
  const ingest: Series[] = results.map((result) => ({
    group: result.info.label,
    points: result.points.map((point) => ({ x: point.chunks, y: point.chunksPerSecond })),
  }));
  const latencySeries = (mode: PeerMode, dashed: boolean): Series[] =>
    results
      .filter((result) => result.points.some((point) => point.latency[mode]))
      .map((result) => ({
        group: result.info.label,
        dashed,
        points: result.points
          .filter((point) => point.latency[mode])
          .map((point) => ({ x: point.chunks, y: point.latency[mode]?.p50 ?? Number.NaN })),
      }));
  const allNotes = [
    ...notes,
    ...results
      .filter((result) => result.cap)
      .map((result) => `${result.info.label}: stops at ${result.cap?.chunks} chunks (${result.cap?.reason}).`),
    ...results.flatMap((result) => result.skippedModes.map((skip) => `${result.info.label} ${skip.mode}: not measured (${skip.reason}).`)),
    ...unavailable.map((entry) => `${entry.info.label}: ${entry.reason}.`),
  ];
  return chartSvg(
    'Peers vs corpus size (synthetic 384-d chunks, precomputed vectors)',
    [
      { title: 'Ingest rate (from empty)', yLabel: 'chunks per second', series: ingest },
      { title: 'Vector query p50, top 10', yLabel: 'milliseconds', series: latencySeries('vector', false) },
      {
        title: 'Hybrid and keyword query p50, top 10',
        yLabel: 'milliseconds',
        series: [...latencySeries('hybrid', false), ...latencySeries('lexical', true)],
      },
    ],
    allNotes,
  );
}

export function isScaling(result: ChildResult): result is ScalingResult {
  return result.kind === 'scaling';
}
