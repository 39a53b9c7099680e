/**
 * bench:scale — the embedded default (SQLite + HNSW) at 10k, 100k and (optionally) 1M chunks of
 * 384-d vectors and abstract-sized text, through the public API, each size in a fresh process
 * (benchmarks/scale-run.ts): ingest rate against a raw hnswlib build of the same vectors in the
 * same process, anonymous RSS (peak during ingest, steady after queries), disk, the first hybrid
 * query after reopening, vector / lexical / hybrid p50 and p99, and recall@10 of the vector path
 * against exact search on a sample.
 *
 *   npm run bench:scale -- [--sizes 10000,100000] [--queries 1000] [--tmp <folder for data>]
 *   npm run bench:scale -- --from a.json,b.json     (tabulate runs made by scale-run.js --out)
 *
 * 1M (`--sizes 1000000`) skips the raw reference build unless `--raw true` is given (then the run
 * takes about an hour on a quiet 2-core machine, half of it the raw build; hours on a loaded one);
 * CI does not run it. Results: benchmarks/results/scale.json and scale.svg (beside peers-scaling.svg).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chartSvg, type Panel } from './peers/svg.js';
import { flags, printTable, RESULTS_DIR, writeResult } from './lib/report.js';

const args = flags(process.argv.slice(2));
const SIZES = (args.get('sizes') ?? '10000,100000').split(',').map(Number);
const QUERIES = args.get('queries') ?? '1000';
const HERE = dirname(fileURLToPath(import.meta.url));

interface Latency {
  p50: number;
  p99: number;
  mean: number;
}

/** What scale-run.ts writes (the parts read here). */
export interface ScaleRun {
  chunks: number;
  ingest: { seconds: number; chunksPerSecond: number; peakAnonMiB: number };
  memory: {
    baseAnonMiB: number;
    afterIngestAnonMiB: number;
    steadyAnonMiB: number;
    reopenedAfterQueriesAnonMiB: number;
    peakRssMiB: number;
  };
  disk: { folderMiB: number; indexMiB: number; textMiB: number };
  reopen: { firstHybridMs: number; closeMs: number };
  latencyMs: { vector: Latency; lexical: Latency; hybrid: Latency };
  recallAt10: number;
  raw: { buildSeconds: number; chunksPerSecond: number; indexMiB: number } | null;
}

export function scaleRows(runs: readonly ScaleRun[]): Record<string, string | number>[] {
  return runs.map((run) => ({
    chunks: run.chunks,
    'ingest chunks/s': run.ingest.chunksPerSecond,
    'raw hnswlib chunks/s': run.raw?.chunksPerSecond ?? Number.NaN,
    'ingest / raw': run.raw ? run.ingest.chunksPerSecond / run.raw.chunksPerSecond : Number.NaN,
    'peak anon MiB (ingest)': run.ingest.peakAnonMiB,
    'steady anon MiB': run.memory.steadyAnonMiB,
    'reopened anon MiB': run.memory.reopenedAfterQueriesAnonMiB,
    'disk MiB': run.disk.folderMiB,
    'disk / (raw index + text)': run.raw ? run.disk.folderMiB / (run.raw.indexMiB + run.disk.textMiB) : Number.NaN,
    'first hybrid after reopen ms': run.reopen.firstHybridMs,
    'vector p50/p99 ms': `${run.latencyMs.vector.p50.toFixed(2)} / ${run.latencyMs.vector.p99.toFixed(1)}`,
    'lexical p50/p99 ms': `${run.latencyMs.lexical.p50.toFixed(2)} / ${run.latencyMs.lexical.p99.toFixed(1)}`,
    'hybrid p50/p99 ms': `${run.latencyMs.hybrid.p50.toFixed(2)} / ${run.latencyMs.hybrid.p99.toFixed(1)}`,
    'recall@10': run.recallAt10,
  }));
}

function chart(runs: readonly ScaleRun[]): string {
  const points = (pick: (run: ScaleRun) => number) => runs.map((run) => ({ x: run.chunks, y: pick(run) }));
  const panels: Panel[] = [
    {
      title: 'Ingest (chunks/s)',
      yLabel: 'chunks/s',
      series: [
        { group: 'ragdesk (public API)', points: points((run) => run.ingest.chunksPerSecond) },
        {
          group: 'raw hnswlib build',
          points: points((run) => run.raw?.chunksPerSecond ?? Number.NaN).filter((point) => Number.isFinite(point.y)),
        },
      ],
    },
    {
      title: 'Anonymous RSS (MiB)',
      yLabel: 'MiB',
      series: [
        { group: 'anon RSS, peak during ingest', points: points((run) => run.ingest.peakAnonMiB) },
        { group: 'anon RSS after 1,000 hybrid queries', points: points((run) => run.memory.steadyAnonMiB) },
      ],
    },
    {
      title: 'Query p50 (ms)',
      yLabel: 'ms',
      series: [
        { group: 'hybrid', points: points((run) => run.latencyMs.hybrid.p50) },
        { group: 'vector', points: points((run) => run.latencyMs.vector.p50) },
        { group: 'lexical', points: points((run) => run.latencyMs.lexical.p50) },
      ],
    },
  ];
  return chartSvg('bench:scale — embedded default, 384-d chunks', panels, [
    'Each size in a fresh process; ratios are against the raw build in the same process.',
  ]);
}

function main(): void {
  const runs: ScaleRun[] = [];
  // --from a.json,b.json: tabulate and chart runs made earlier by scale-run.ts --out.
  const from = args.get('from');
  if (from) {
    for (const file of from.split(',')) runs.push(JSON.parse(readFileSync(file, 'utf8')) as ScaleRun);
    report(runs);
    return;
  }
  const out = mkdtempSync(join(tmpdir(), 'ragdesk-bench-scale-results-'));
  try {
    for (const size of SIZES) {
      const file = join(out, `${size}.json`);
      const started = performance.now();
      const extra = [
        ...(args.get('tmp') ? ['--tmp', args.get('tmp') as string] : []),
        ...(args.get('raw') ? ['--raw', args.get('raw') as string] : []),
      ];
      const child = spawnSync(
        process.execPath,
        ['--expose-gc', join(HERE, 'scale-run.js'), '--chunks', String(size), '--queries', QUERIES, '--out', file, ...extra],
        { stdio: 'inherit' },
      );
      if (child.status !== 0) throw new Error(`bench:scale ${size} chunks failed (exit ${child.status})`);
      console.log(`[scale] ${size} chunks: ${((performance.now() - started) / 60_000).toFixed(1)} min in all`);
      runs.push(JSON.parse(readFileSync(file, 'utf8')) as ScaleRun);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  report(runs);
}

function report(runs: readonly ScaleRun[]): void {
  printTable('bench:scale', scaleRows(runs));
  writeFileSync(join(RESULTS_DIR, 'scale.svg'), chart(runs));
  writeResult('scale', { sizes: runs.map((run) => run.chunks), runs });
}

main();
