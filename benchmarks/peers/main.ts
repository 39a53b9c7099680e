/**
 * bench:peers — ragdesk's embedded default against the libraries users would pick instead, on the
 * same documents and the same embedder, each peer in a fresh child process:
 *
 *   1. SciFact (train split), offline local embedder: every peer chunks and embeds itself.
 *   2. SciFact, shared vectors: chunks cut and embedded once, the same vectors fed to every peer.
 *   3. Scaling: synthetic 384-d chunks at 10k / 50k / 100k, ingest rate and query latency.
 *
 *   npm run bench:peers [-- --repeat 3 --peers ragdesk,orama --runs local,shared --sizes 10000,50000,100000]
 *   npm run bench:peers -- --quick          (small corpus and sizes: a few minutes; writes peers-quick.*)
 *   node dist/benchmarks/peers/main.js --render benchmarks/results/peers.json      (page + chart again)
 *   ... --peers ragdesk --runs shared --merge-into benchmarks/results/peers.json  (re-measure, fold in)
 *
 * Other flags: --latency-queries 200, --budget-s 60 (latency, per mode), --quality-budget-s 300,
 * --scaling-queries 200, --limit-docs N, --vectra-upsert-docs 300, --name peers.
 * Writes benchmarks/results/<name>.json, <name>.md and <name>-scaling.svg.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { datasetLabel, datasetPath } from '../../fixtures/datasets.js';
import { flags, writeResult } from '../lib/report.js';
import { loadCorpus, prepareSharedVectors, writeSharedVectors } from './data.js';
import { isPeerId, PEER_IDS } from './registry.js';
import type { ChildResult, ScalingResult, ScifactResult, Unavailable, VectraUpsertResult } from './results.js';
import { localTextEmbedder } from './shared.js';
import { mergeReports } from './merge.js';
import { renderReport, type PeersReport } from './render.js';
import { isScaling, summarise, type PeerSummary } from './summary.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const args = flags(process.argv.slice(2));
const quick = args.has('quick');
const option = (name: string, full: string, short: string) => args.get(name) ?? (quick ? short : full);

const settings = {
  dataset: args.get('dataset') ?? datasetPath('datasets', 'scifact'),
  split: args.get('split') ?? 'train',
  peers: (args.get('peers')?.split(',') ?? [...PEER_IDS]).map((id) => {
    if (!isPeerId(id)) throw new Error(`unknown peer ${id}; known: ${PEER_IDS.join(', ')}`);
    return id;
  }),
  runs: option('runs', 'local,shared', 'local,shared')
    .split(',')
    .filter((run): run is 'local' | 'shared' => run === 'local' || run === 'shared'),
  repeat: Number(option('repeat', '1', '1')),
  sizes:
    option('sizes', '10000,50000,100000', '2000,5000') === 'none'
      ? []
      : option('sizes', '10000,50000,100000', '2000,5000').split(',').map(Number),
  limitDocs: args.get('limit-docs') ?? (quick ? '800' : undefined),
  latencyQueries: option('latency-queries', '200', '50'),
  scalingQueries: option('scaling-queries', '200', '50'),
  budgetS: option('budget-s', '60', '10'),
  qualityBudgetS: option('quality-budget-s', '300', '20'),
  vectraUpsertDocs: Number(option('vectra-upsert-docs', '300', '40')),
  name: args.get('name') ?? (quick ? 'peers-quick' : 'peers'),
  childTimeoutS: Number(args.get('child-timeout-s') ?? 3600),
};

const work = mkdtempSync(join(tmpdir(), 'ragdesk-bench-peers-'));
let childCount = 0;

/**
 * Runs one child and reads its JSON. A child that fails is started once more (a rebuild of dist/
 * by another process can catch it half-written); a second failure is reported, not hidden.
 */
function child(workload: string, peer: string | undefined, extra: readonly string[]): ChildResult | { kind: 'failed'; error: string } {
  const first = childOnce(workload, peer, extra);
  if (first.kind !== 'failed') return first;
  console.log(`  ${workload} ${peer ?? ''}: retrying once`);
  return childOnce(workload, peer, extra);
}

function childOnce(workload: string, peer: string | undefined, extra: readonly string[]): ChildResult | { kind: 'failed'; error: string } {
  const id = `${++childCount}`;
  const out = join(work, `${id}.json`);
  const dir = join(work, `w${id}`);
  mkdirSync(dir);
  const argv = [
    '--expose-gc',
    join(HERE, 'run-one.js'),
    '--workload',
    workload,
    '--work',
    dir,
    '--out',
    out,
    ...(peer ? ['--peer', peer] : []),
    ...extra,
  ];
  const started = performance.now();
  const result = spawnSync(process.execPath, argv, { stdio: ['ignore', 'inherit', 'inherit'], timeout: settings.childTimeoutS * 1000 });
  rmSync(dir, { recursive: true, force: true });
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  if (result.status !== 0 || !existsSync(out)) {
    const error = result.error?.message ?? `exit ${result.status ?? result.signal}`;
    console.log(`  ${workload} ${peer ?? ''}: FAILED (${error}) after ${seconds} s`);
    return { kind: 'failed', error };
  }
  console.log(`  ${workload} ${peer ?? ''}: done in ${seconds} s`);
  return JSON.parse(readFileSync(out, 'utf8')) as ChildResult;
}

function machine() {
  return {
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    loadAverageAtStart: loadavg().map((value) => Number(value.toFixed(2))),
  };
}

async function main(): Promise<void> {
  // Read before anything is written: this run saves its own report under `--name` (default
  // `peers`), which is usually the very file it is merged into.
  const mergePath = args.get('merge-into');
  const mergeTarget = mergePath ? { path: mergePath, base: JSON.parse(readFileSync(mergePath, 'utf8')) as PeersReport } : null;
  const startedAt = new Date();
  const atStart = machine();
  console.log(
    `bench:peers — peers ${settings.peers.join(', ')}; runs ${settings.runs.join(', ') || 'none'} x${settings.repeat}; scaling ${settings.sizes.join(', ') || 'none'}`,
  );
  console.log(
    `machine: ${atStart.cpus} cores (${atStart.cpuModel}), Node ${atStart.node}, load average ${atStart.loadAverageAtStart.join(' ')}`,
  );
  const common = [
    '--dataset',
    settings.dataset,
    '--split',
    settings.split,
    '--latency-queries',
    settings.latencyQueries,
    '--budget-s',
    settings.budgetS,
    '--quality-budget-s',
    settings.qualityBudgetS,
    ...(settings.limitDocs ? ['--limit-docs', settings.limitDocs] : []),
  ];

  if (settings.runs.includes('shared')) {
    const started = performance.now();
    const { dataset, documents } = loadCorpus(
      settings.dataset,
      settings.split,
      settings.limitDocs === undefined ? undefined : Number(settings.limitDocs),
    );
    const shared = await prepareSharedVectors(
      documents,
      dataset.queries.map((query) => query.text),
      localTextEmbedder(),
    );
    mkdirSync(join(work, 'shared'));
    writeSharedVectors(join(work, 'shared'), shared);
    console.log(
      `shared vectors: ${shared.chunks.length} chunks + ${shared.queries.length} queries embedded once (${shared.model}) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }

  const summaries: PeerSummary[] = [];
  const failures: { workload: string; peer: string; error: string }[] = [];
  let vectraUpsert: VectraUpsertResult | null = null;
  const scaling: ScalingResult[] = [];
  const scalingUnavailable: Unavailable[] = [];
  // The data set by its name in the data sets folder, not by this machine's path.
  const recordedSettings = { ...settings, dataset: datasetLabel(settings.dataset) };
  // Written after each phase, so a run stopped during the (long) scaling phase keeps what it measured.
  const save = (): PeersReport => {
    const report: PeersReport = {
      name: settings.name,
      settings: recordedSettings,
      startedAt: startedAt.toISOString(),
      date: new Date().toISOString(),
      machine: atStart,
      loadAverage: { start: atStart.loadAverageAtStart, end: machine().loadAverageAtStart },
      summaries,
      vectraUpsert,
      scaling,
      scalingUnavailable,
      failures,
    };
    renderReport(report);
    writeResult(settings.name, report as unknown as Record<string, unknown>);
    return report;
  };
  for (const run of settings.runs) {
    console.log(
      `\nSciFact ${settings.split}, ${run === 'local' ? 'offline local embedder (each peer chunks and embeds)' : 'shared precomputed vectors'}`,
    );
    // Repeats go round all peers in turn rather than back to back, so a burst of load from other
    // processes on this shared machine lands on several peers instead of all repeats of one.
    const results = new Map<string, (ScifactResult | Unavailable)[]>(settings.peers.map((peer) => [peer, []]));
    for (let repeat = 0; repeat < settings.repeat; repeat++) {
      for (const peer of settings.peers) {
        const mine = results.get(peer) as (ScifactResult | Unavailable)[];
        if (mine[0]?.kind === 'unavailable') continue;
        const result = child('scifact', peer, [
          ...common,
          '--vectors',
          run,
          '--data',
          join(work, 'shared'),
          ...(repeat > 0 ? ['--skip-quality'] : []),
        ]);
        if (result.kind === 'failed') failures.push({ workload: `scifact-${run}`, peer, error: result.error });
        else if (result.kind === 'scifact' || result.kind === 'unavailable') mine.push(result);
      }
    }
    for (const peer of settings.peers) {
      const mine = results.get(peer) as (ScifactResult | Unavailable)[];
      // The first result carries the quality figures; a peer whose first run failed is left out.
      if (mine.length > 0 && (mine[0]?.kind === 'unavailable' || mine[0]?.modes.every((mode) => mode.quality.queries > 0)))
        summaries.push(summarise(run, mine));
    }
  }

  if (settings.peers.includes('vectra') && settings.vectraUpsertDocs > 0) {
    console.log(`\nVectra upsertDocument, first ${settings.vectraUpsertDocs} documents`);
    const result = child('vectra-upsert', undefined, [...common, '--documents', String(settings.vectraUpsertDocs)]);
    if (result.kind === 'vectra-upsert') vectraUpsert = result;
  }
  let report = save();

  if (settings.sizes.length > 0) {
    console.log(`\nScaling: ${settings.sizes.join(', ')} synthetic chunks`);
    for (const peer of settings.peers) {
      const result = child('scaling', peer, [
        '--sizes',
        settings.sizes.join(','),
        '--scaling-queries',
        settings.scalingQueries,
        '--budget-s',
        settings.budgetS,
      ]);
      if (result.kind === 'failed') failures.push({ workload: 'scaling', peer, error: result.error });
      else if (isScaling(result)) scaling.push(result);
      else if (result.kind === 'unavailable') scalingUnavailable.push(result);
    }
  }

  if (settings.sizes.length > 0) report = save();
  if (mergeTarget) {
    const merged = mergeReports(mergeTarget.base, report);
    writeFileSync(mergeTarget.path, `${JSON.stringify(merged, null, 2)}\n`);
    renderReport(merged);
    console.log(`merged into ${mergeTarget.path}`);
  }
  if (failures.length > 0) process.exitCode = 1;
}

// `--render benchmarks/results/peers.json` rebuilds the page and the chart from a saved run.
const rendering = args.get('render');
(rendering ? Promise.resolve(renderReport(JSON.parse(readFileSync(rendering, 'utf8')) as PeersReport)) : main())
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => rmSync(work, { recursive: true, force: true }));
