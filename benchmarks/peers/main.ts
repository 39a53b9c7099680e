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
 *
 * Writes benchmarks/results/peers.json, peers.md and peers-scaling.svg.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flags, PACKAGE_ROOT, printTable, RESULTS_DIR, writeResult } from '../lib/report.js';
import { loadCorpus, prepareSharedVectors, writeSharedVectors } from './data.js';
import { isPeerId, PEER_IDS, type PeerId } from './registry.js';
import type { ChildResult, ScalingResult, ScifactResult, Unavailable, VectraUpsertResult } from './results.js';
import { localTextEmbedder } from './shared.js';
import { isScaling, markdownTable, modeRows, peerRows, ratioRows, scalingChart, scalingRows, summarise, type PeerSummary } from './summary.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const args = flags(process.argv.slice(2));
const quick = args.has('quick');
const option = (name: string, full: string, short: string) => args.get(name) ?? (quick ? short : full);

const settings = {
  dataset: args.get('dataset') ?? join(PACKAGE_ROOT, '..', 'shared', 'datasets', 'scifact'),
  split: args.get('split') ?? 'train',
  peers: (args.get('peers')?.split(',') ?? [...PEER_IDS]).map((id) => {
    if (!isPeerId(id)) throw new Error(`unknown peer ${id}; known: ${PEER_IDS.join(', ')}`);
    return id;
  }),
  runs: option('runs', 'local,shared', 'local,shared').split(',').filter((run): run is 'local' | 'shared' => run === 'local' || run === 'shared'),
  repeat: Number(option('repeat', '1', '1')),
  sizes: option('sizes', '10000,50000,100000', '2000,5000') === 'none' ? [] : option('sizes', '10000,50000,100000', '2000,5000').split(',').map(Number),
  limitDocs: args.get('limit-docs') ?? (quick ? '800' : undefined),
  latencyQueries: option('latency-queries', '300', '50'),
  scalingQueries: option('scaling-queries', '200', '50'),
  budgetS: option('budget-s', '120', '15'),
  vectraUpsertDocs: Number(option('vectra-upsert-docs', '300', '40')),
  name: args.get('name') ?? (quick ? 'peers-quick' : 'peers'),
  childTimeoutS: Number(args.get('child-timeout-s') ?? 3600),
};

const work = mkdtempSync(join(tmpdir(), 'ragdesk-bench-peers-'));
let childCount = 0;

/** Runs one child to completion and reads its JSON; a crash is reported, not hidden. */
function child(workload: string, peer: string | undefined, extra: readonly string[]): ChildResult | { kind: 'failed'; error: string } {
  const id = `${++childCount}`;
  const out = join(work, `${id}.json`);
  const dir = join(work, `w${id}`);
  mkdirSync(dir);
  const argv = ['--expose-gc', join(HERE, 'run-one.js'), '--workload', workload, '--work', dir, '--out', out, ...(peer ? ['--peer', peer] : []), ...extra];
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
  return { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), loadAverageAtStart: loadavg().map((value) => Number(value.toFixed(2))) };
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const atStart = machine();
  console.log(`bench:peers — peers ${settings.peers.join(', ')}; runs ${settings.runs.join(', ') || 'none'} x${settings.repeat}; scaling ${settings.sizes.join(', ') || 'none'}`);
  console.log(`machine: ${atStart.cpus} cores (${atStart.cpuModel}), Node ${atStart.node}, load average ${atStart.loadAverageAtStart.join(' ')}`);
  const common = ['--dataset', settings.dataset, '--split', settings.split, '--latency-queries', settings.latencyQueries, '--budget-s', settings.budgetS, ...(settings.limitDocs ? ['--limit-docs', settings.limitDocs] : [])];

  if (settings.runs.includes('shared')) {
    const started = performance.now();
    const { dataset, documents } = loadCorpus(settings.dataset, settings.split, settings.limitDocs === undefined ? undefined : Number(settings.limitDocs));
    const shared = await prepareSharedVectors(documents, dataset.queries.map((query) => query.text), localTextEmbedder());
    mkdirSync(join(work, 'shared'));
    writeSharedVectors(join(work, 'shared'), shared);
    console.log(`shared vectors: ${shared.chunks.length} chunks + ${shared.queries.length} queries embedded once (${shared.model}) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }

  const summaries: PeerSummary[] = [];
  const failures: { workload: string; peer: string; error: string }[] = [];
  for (const run of settings.runs) {
    console.log(`\nSciFact ${settings.split}, ${run === 'local' ? 'offline local embedder (each peer chunks and embeds)' : 'shared precomputed vectors'}`);
    for (const peer of settings.peers) {
      const results: (ScifactResult | Unavailable)[] = [];
      for (let repeat = 0; repeat < settings.repeat; repeat++) {
        const result = child('scifact', peer, [...common, '--vectors', run, '--data', join(work, 'shared')]);
        if (result.kind === 'failed') failures.push({ workload: `scifact-${run}`, peer, error: result.error });
        else if (result.kind === 'scifact' || result.kind === 'unavailable') results.push(result);
        if (result.kind === 'unavailable') break;
      }
      if (results.length > 0) summaries.push(summarise(run, results));
    }
  }

  let vectraUpsert: VectraUpsertResult | null = null;
  if (settings.peers.includes('vectra') && settings.vectraUpsertDocs > 0) {
    console.log(`\nVectra upsertDocument, first ${settings.vectraUpsertDocs} documents`);
    const result = child('vectra-upsert', undefined, [...common, '--documents', String(settings.vectraUpsertDocs)]);
    if (result.kind === 'vectra-upsert') vectraUpsert = result;
  }

  const scaling: ScalingResult[] = [];
  const scalingUnavailable: Unavailable[] = [];
  if (settings.sizes.length > 0) {
    console.log(`\nScaling: ${settings.sizes.join(', ')} synthetic chunks`);
    for (const peer of settings.peers as PeerId[]) {
      const result = child('scaling', peer, ['--sizes', settings.sizes.join(','), '--scaling-queries', settings.scalingQueries, '--budget-s', settings.budgetS]);
      if (result.kind === 'failed') failures.push({ workload: 'scaling', peer, error: result.error });
      else if (isScaling(result)) scaling.push(result);
      else if (result.kind === 'unavailable') scalingUnavailable.push(result);
    }
  }

  const finishedAt = new Date();
  const atEnd = machine();
  const sections: string[] = [];
  sections.push(`# Peer comparison (${settings.name})\n`);
  sections.push(
    `Run ${startedAt.toISOString()} – ${finishedAt.toISOString()} on ${atStart.cpus} cores (${atStart.cpuModel}), ${atStart.memoryGiB} GiB, Node ${atStart.node}; ` +
      `load average ${atStart.loadAverageAtStart.join(' ')} at start, ${atEnd.loadAverageAtStart.join(' ')} at end (the machine is shared). ` +
      `Each peer ran in a fresh child process; figures are medians of ${settings.repeat} run(s). Generated by \`npm run bench:peers\`.\n`,
  );
  for (const run of settings.runs) {
    const rows = summaries.filter((summary) => summary.run === run);
    if (rows.length === 0) continue;
    const title = run === 'local' ? 'offline local embedder, each peer chunks and embeds (text to searchable)' : 'shared precomputed vectors (store and index only)';
    printTable(`SciFact ${settings.split} — ${title}: ingest and footprint`, peerRows(rows));
    printTable(`SciFact ${settings.split} — ${title}: quality (top 100) and top-10 latency`, modeRows(rows));
    printTable(`ragdesk ÷ peer (below 1: ragdesk faster/smaller)`, ratioRows(rows));
    sections.push(`## SciFact ${settings.split}: ${title}\n`);
    sections.push(`${markdownTable(peerRows(rows))}\n`);
    sections.push(`${markdownTable(modeRows(rows))}\n`);
    sections.push(`ragdesk ÷ peer (time, memory, disk: below 1 means ragdesk is faster or smaller; nDCG@10: ragdesk minus peer):\n`);
    sections.push(`${markdownTable(ratioRows(rows))}\n`);
  }
  if (vectraUpsert) {
    const line = `Vectra's per-document \`upsertDocument\` (rewrites index.json on every call): ${vectraUpsert.documents} documents in ${vectraUpsert.seconds.toFixed(1)} s = ${vectraUpsert.documentsPerSecond.toFixed(1)} documents/s, the last one taking ${vectraUpsert.lastDocumentMs.toFixed(0)} ms and growing with the index.`;
    console.log(`\n${line}`);
    sections.push(`${line}\n`);
  }
  if (scaling.length > 0) {
    printTable('Scaling (synthetic chunks, precomputed vectors)', scalingRows(scaling));
    const chartName = `${settings.name}-scaling.svg`;
    const notes = [`${finishedAt.toISOString().slice(0, 10)}, ${atStart.cpus} shared cores, Node ${atStart.node}; ingest = from empty to N chunks searchable, batches of 5,000; latency = top 10 over ${settings.scalingQueries} queries.`];
    writeFileSync(join(RESULTS_DIR, chartName), scalingChart(scaling, scalingUnavailable, notes));
    sections.push(`## Scaling: synthetic 384-d chunks, precomputed vectors\n`);
    sections.push(`![ingest rate and query latency vs corpus size](${chartName})\n`);
    sections.push(`${markdownTable(scalingRows(scaling))}\n`);
    for (const result of scaling) {
      if (result.cap) sections.push(`- ${result.info.label} stops at ${result.cap.chunks} chunks: ${result.cap.reason}.`);
      for (const skip of result.skippedModes) sections.push(`- ${result.info.label} ${skip.mode}: not measured (${skip.reason}).`);
    }
    sections.push('');
  }
  const notes = summaries.filter((summary, i, all) => all.findIndex((other) => other.info.id === summary.info.id) === i);
  sections.push(`## Peers\n`);
  for (const summary of notes) {
    sections.push(`- **${summary.info.label}** (${summary.info.library}; chunker: ${summary.info.chunker}): ${summary.unavailable ?? summary.info.notes.join('; ')}`);
  }
  if (failures.length > 0) {
    sections.push(`\n## Failures\n`);
    for (const failure of failures) sections.push(`- ${failure.workload} ${failure.peer}: ${failure.error}`);
  }
  writeFileSync(join(RESULTS_DIR, `${settings.name}.md`), `${sections.join('\n')}\n`);
  console.log(`wrote ${join(RESULTS_DIR, `${settings.name}.md`)}`);
  writeResult(settings.name, { settings, startedAt: startedAt.toISOString(), loadAverage: { start: atStart.loadAverageAtStart, end: atEnd.loadAverageAtStart }, summaries, vectraUpsert, scaling, scalingUnavailable, failures });
  if (failures.length > 0) process.exitCode = 1;
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => rmSync(work, { recursive: true, force: true }));
