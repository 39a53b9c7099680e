/**
 * One peer, one workload, in a process of its own (so peak RSS is that peer's alone); the result
 * goes to the JSON file named by `--out`. Started by main.ts:
 *
 *   node --expose-gc dist/benchmarks/peers/run-one.js --workload scifact --peer orama --vectors local \
 *     --dataset "$RAGDESK_DATASETS_DIR/datasets/scifact" --split train --data <dir> --work <dir> --out <file>
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { flags } from '../lib/report.js';
import { syntheticCorpus } from '../lib/synthetic.js';
import { loadCorpus, readSharedVectors } from './data.js';
import { loadavg } from 'node:os';
import { collectGarbage, cpuSecondsSince, measureLatency, measureQuality, peakRssMiB } from './measure.js';
import type { PreparedChunk, SourceDocument, TextEmbedder } from './peer.js';
import { isPeerId, loadPeer } from './registry.js';
import type { ChildResult, ModeResult, ScalingPoint, ScalingResult, ScifactResult } from './results.js';
import { SCALING_LIMITS } from './scaling-limits.js';
import { localTextEmbedder, lookupEmbedder } from './shared.js';

const args = flags(process.argv.slice(2));
const need = (name: string): string => {
  const value = args.get(name);
  if (value === undefined) throw new Error(`run-one: --${name} is required`);
  return value;
};
const log = (message: string) => process.stderr.write(`  [${args.get('peer') ?? args.get('workload')}] ${message}\n`);

async function scifact(): Promise<ChildResult> {
  const vectors = need('vectors') as 'local' | 'shared';
  const limit = args.has('limit-docs') ? Number(args.get('limit-docs')) : undefined;
  const { dataset, documents } = loadCorpus(need('dataset'), args.get('split') ?? 'train', limit);
  const shared = vectors === 'shared' ? readSharedVectors(need('data')) : undefined;
  let embedder: TextEmbedder;
  if (shared) {
    const table = new Map<string, Float32Array>();
    for (const chunk of shared.chunks) table.set(chunk.text, chunk.vector);
    for (const query of shared.queries) table.set(query.text, query.vector);
    embedder = lookupEmbedder(shared.model, shared.dimensions, table, shared.fusionWeight);
  } else {
    embedder = localTextEmbedder();
    await embedder.embed(['warm up the embedder tables']);
  }
  collectGarbage();
  const baselineRssMiB = peakRssMiB();

  const factory = await loadPeer(peerId());
  if (!factory.available) return { kind: 'unavailable', info: factory.info, reason: factory.reason };
  const dir = workDir();
  const peer = await factory.open({ dir, embedder, expectedChunks: shared?.chunks.length ?? documents.length * 2 });
  const loadAtStart = loadavg()[0] as number;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const { chunks } = shared
    ? await peer.ingestChunks(shared.chunks, new Map(documents.map((document) => [document.id, document])))
    : await peer.ingestDocuments(documents);
  const ingestSeconds = (performance.now() - started) / 1000;
  const ingestCpuSeconds = cpuSecondsSince(cpu);
  log(
    `ingested ${documents.length} documents (${chunks} chunks) in ${ingestSeconds.toFixed(1)} s (CPU ${ingestCpuSeconds.toFixed(1)} s, load ${loadAtStart.toFixed(1)})`,
  );
  // Latency and quality are measured once the peer is idle, not while it still indexes.
  await peer.settle?.();
  const settledSeconds = (performance.now() - started) / 1000;
  if (peer.settle) log(`settled (background indexing done) ${settledSeconds.toFixed(1)} s after the ingest started`);

  // Per mode: the quality pass (809 queries at top 100) and the latency pass each stop at their budget.
  const qualityBudgetMs = Number(args.get('quality-budget-s') ?? 300) * 1000;
  const budgetMs = Number(args.get('budget-s') ?? 60) * 1000;
  const latencyQueries = Number(args.get('latency-queries') ?? 200);
  const modes: ModeResult[] = [];
  for (const mode of factory.info.modes) {
    // Quality is deterministic: repeats after the first measure only time (--skip-quality).
    const quality = args.has('skip-quality')
      ? { ndcg10: Number.NaN, recall100: Number.NaN, mrr10: Number.NaN, queries: 0, ofQueries: dataset.queries.length }
      : await measureQuality(peer, mode, dataset.queries, dataset.qrels, qualityBudgetMs);
    const latency = await measureLatency(
      peer,
      mode,
      dataset.queries.map((query) => query.text),
      latencyQueries,
      budgetMs,
    );
    log(
      `${mode}: nDCG@10 ${quality.ndcg10.toFixed(3)} (${quality.queries}/${quality.ofQueries} queries), p50 ${latency.p50.toFixed(2)} ms, CPU ${latency.cpuMs.toFixed(2)} ms/query`,
    );
    modes.push({ mode, quality, latency });
  }
  const closed = await peer.close(true);
  const result: ScifactResult = {
    kind: 'scifact',
    info: factory.info,
    vectors,
    documents: documents.length,
    chunks,
    ingestSeconds,
    ingestCpuSeconds,
    settledSeconds,
    loadAverage: [loadAtStart, loadavg()[0] as number],
    baselineRssMiB,
    peakRssMiB: peakRssMiB(),
    diskBytes: closed.diskBytes,
    persistMs: closed.persistMs,
    modes,
  };
  rmSync(dir, { recursive: true, force: true });
  return result;
}

async function scaling(): Promise<ChildResult> {
  const id = peerId();
  const requested = need('sizes')
    .split(',')
    .map(Number)
    .sort((a, b) => a - b);
  const dimensions = Number(args.get('dimensions') ?? 384);
  const queryCount = Number(args.get('scaling-queries') ?? 200);
  const limit = SCALING_LIMITS[id] ?? {};
  const capArg = args.get('cap');
  const maxChunks = capArg === 'none' ? Infinity : capArg !== undefined ? Number(capArg) : (limit.maxChunks ?? Infinity);
  const sizes = requested.filter((size) => size <= maxChunks);
  const largest = sizes[sizes.length - 1] ?? 0;
  const corpus = syntheticCorpus({ count: requested[requested.length - 1] ?? 0, dimensions, clusters: 200, queries: queryCount, seed: 42 });
  const table = new Map<string, Float32Array>();
  corpus.texts.forEach((text, i) => table.set(text, corpus.vectors[i] as Float32Array));
  corpus.queries.forEach((query) => table.set(query.text, query.vector));
  const embedder = lookupEmbedder(`synthetic-${dimensions}`, dimensions, table);
  const chunks: PreparedChunk[] = corpus.texts
    .slice(0, largest)
    .map((text, i) => ({ docId: `s${i}`, text, charOffset: 0, vector: corpus.vectors[i] as Float32Array }));
  const documents = new Map<string, SourceDocument>(chunks.map((chunk) => [chunk.docId, { id: chunk.docId, text: chunk.text }]));
  const queries = corpus.queries.map((query) => query.text);

  const factory = await loadPeer(id);
  if (!factory.available) return { kind: 'unavailable', info: factory.info, reason: factory.reason };
  const skippedModes = limit.skipModes ?? [];
  const modes = factory.info.modes.filter((mode) => !skippedModes.some((skip) => skip.mode === mode));
  const dir = workDir();
  const peer = await factory.open({ dir, embedder, expectedChunks: largest });
  const budgetMs = Number(args.get('budget-s') ?? 60) * 1000;
  const batch = Number(args.get('batch') ?? 5000);
  const points: ScalingPoint[] = [];
  let ingested = 0;
  let ingestSeconds = 0;
  let ingestCpuSeconds = 0;
  for (const size of sizes) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    for (let start = ingested; start < size; start += batch)
      await peer.ingestChunks(chunks.slice(start, Math.min(size, start + batch)), documents);
    // Timed: the rates compare whole builds, the raw hnswlib build among them.
    await peer.settle?.();
    ingestSeconds += (performance.now() - started) / 1000;
    ingestCpuSeconds += cpuSecondsSince(cpu);
    ingested = size;
    const latency: ScalingPoint['latency'] = {};
    for (const mode of modes) latency[mode] = await measureLatency(peer, mode, queries, queryCount, budgetMs);
    const point = {
      chunks: size,
      ingestSeconds,
      chunksPerSecond: size / ingestSeconds,
      ingestCpuSeconds,
      peakRssMiB: peakRssMiB(),
      latency,
    };
    log(
      `${size} chunks: ${point.chunksPerSecond.toFixed(0)} chunks/s, ${modes.map((mode) => `${mode} p50 ${latency[mode]?.p50.toFixed(2)} ms`).join(', ')}`,
    );
    points.push(point);
  }
  await peer.close(false);
  rmSync(dir, { recursive: true, force: true });
  const capped = sizes.length < requested.length;
  const result: ScalingResult = {
    kind: 'scaling',
    info: factory.info,
    dimensions,
    cap: capped ? { chunks: largest, reason: limit.maxChunksReason ?? `capped at ${largest} by --cap` } : null,
    skippedModes: skippedModes.filter((skip) => factory.info.modes.includes(skip.mode)),
    points,
  };
  return result;
}

async function vectraUpsert(): Promise<ChildResult> {
  const { upsertDocumentRate } = await import('./vectra.js');
  const count = Number(args.get('documents') ?? 300);
  const { documents } = loadCorpus(need('dataset'), args.get('split') ?? 'train', count);
  const rate = await upsertDocumentRate(workDir(), localTextEmbedder(), documents);
  rmSync(need('work'), { recursive: true, force: true });
  return {
    kind: 'vectra-upsert',
    documents: rate.documents,
    seconds: rate.seconds,
    documentsPerSecond: rate.documents / rate.seconds,
    lastDocumentMs: rate.lastMs,
  };
}

function peerId() {
  const id = need('peer');
  if (!isPeerId(id)) throw new Error(`unknown peer ${id}`);
  return id;
}

function workDir(): string {
  const dir = join(need('work'), 'peer');
  mkdirSync(dir, { recursive: true });
  return dir;
}

const WORKLOADS: Record<string, () => Promise<ChildResult>> = { scifact, scaling, 'vectra-upsert': vectraUpsert };

async function main(): Promise<void> {
  const workload = WORKLOADS[need('workload')];
  if (!workload) throw new Error(`unknown workload ${args.get('workload')}`);
  const result = await workload();
  writeFileSync(need('out'), JSON.stringify(result));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
