/**
 * bench:ef-construction — what the HNSW build beam (`efConstruction`) buys: raw hnswlib-node builds
 * of the same vectors at several beam widths, one after another in this process, each timed and
 * scored by recall@10 against exact search at several query beams (`ef`).
 *
 *   npm run bench:ef-construction -- [--chunks 100000] [--values 200,160,128,100] [--ef 32,64,100,128,200] [--queries 200]
 *
 * Two data sets:
 * - bench:scale's corpus (benchmarks/lib/scale-corpus.ts), 384-d cosine, at `--chunks`: wide
 *   clusters, a hard case, and the one the 1M build goal is measured on;
 * - MNIST (9,000 784-d images, L2, the exact top 100 given), read from the data sets folder
 *   (RAGDESK_DATASETS_DIR) when present: real vectors, small.
 *
 * The default `efConstruction` of `hnswIndex` was chosen on this table (docs/decisions/004-hnsw-build-beam-200.md).
 * Results: benchmarks/results/ef-construction-<chunks>.json.
 */
import hnswlib from 'hnswlib-node';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HNSW_DEFAULTS } from '../adapters/hnsw/options.js';
import { datasetPath } from '../fixtures/datasets.js';
import { flags, printTable, writeResult, type Row } from './lib/report.js';
import { scaleCorpus } from './lib/scale-corpus.js';
import { exactTopK } from './lib/synthetic.js';

const args = flags(process.argv.slice(2));
const COUNT = Number(args.get('chunks') ?? 100_000);
const VALUES = (args.get('values') ?? '200,160,128,100').split(',').map(Number);
const EF = (args.get('ef') ?? '32,64,100,128,200').split(',').map(Number);
const QUERIES = Number(args.get('queries') ?? 200);
const MNIST = datasetPath('datasets', 'mnist-10k');
const TOP_K = 10;

interface DataSet {
  name: string;
  space: 'cosine' | 'l2';
  dimensions: number;
  count: number;
  /** Fills `into` with vector i. */
  vector(i: number, into: number[]): void;
  queries: number[][];
  /** The exact top 10 of each query. */
  truth: Set<number>[];
}

interface Build {
  dataSet: string;
  efConstruction: number;
  buildSeconds: number;
  recallAt10: Record<string, number>;
  queryMs: Record<string, number>;
}

function scaleData(): DataSet {
  const corpus = scaleCorpus(COUNT);
  const { dimensions } = corpus;
  // One flat copy: chunk(i) recomputes the vector from i, too slow to call once per build and once per exact pass.
  const flat = new Float32Array(COUNT * dimensions);
  for (let i = 0; i < COUNT; i++) flat.set(corpus.chunk(i).vector, i * dimensions);
  const queries = Array.from({ length: QUERIES }, (_, q) => corpus.query(q).vector);
  const rows = Array.from({ length: COUNT }, (_, i) => flat.subarray(i * dimensions, (i + 1) * dimensions));
  const truth = queries.map((query) => new Set(exactTopK(rows, query, TOP_K)));
  return {
    name: `scale corpus, ${COUNT} x ${dimensions} cosine`,
    space: 'cosine',
    dimensions,
    count: COUNT,
    vector(i, into) {
      for (let d = 0, at = i * dimensions; d < dimensions; d++) into[d] = flat[at + d] as number;
    },
    queries: queries.map((query) => Array.from(query)),
    truth,
  };
}

/** TEXMEX .fvecs / .ivecs: per row an int32 dimension, then the values. */
function vecs(path: string, read: (view: DataView, at: number) => number): number[][] {
  const bytes = readFileSync(path);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dimensions = view.getInt32(0, true);
  const rowBytes = 4 + 4 * dimensions;
  return Array.from({ length: bytes.byteLength / rowBytes }, (_, row) =>
    Array.from({ length: dimensions }, (_, d) => read(view, row * rowBytes + 4 + 4 * d)),
  );
}

function mnistData(): DataSet | undefined {
  if (!existsSync(join(MNIST, 'base.fvecs'))) {
    console.log(`skipping MNIST: ${MNIST} is absent`);
    return undefined;
  }
  const float = (view: DataView, at: number) => view.getFloat32(at, true);
  const base = vecs(join(MNIST, 'base.fvecs'), float);
  const queries = vecs(join(MNIST, 'query.fvecs'), float);
  const truth = vecs(join(MNIST, 'gt_l2_top100.ivecs'), (view, at) => view.getInt32(at, true)).map((row) => new Set(row.slice(0, TOP_K)));
  const dimensions = (base[0] as number[]).length;
  return {
    name: `MNIST, ${base.length} x ${dimensions} L2`,
    space: 'l2',
    dimensions,
    count: base.length,
    vector(i, into) {
      const row = base[i] as number[];
      for (let d = 0; d < dimensions; d++) into[d] = row[d] as number;
    },
    queries,
    truth,
  };
}

function build(data: DataSet, efConstruction: number): Build {
  const graph = new hnswlib.HierarchicalNSW(data.space, data.dimensions);
  graph.initIndex(data.count, HNSW_DEFAULTS.m, efConstruction, 100);
  const point = new Array<number>(data.dimensions).fill(0);
  const started = performance.now();
  for (let i = 0; i < data.count; i++) {
    data.vector(i, point);
    graph.addPoint(point, i);
  }
  const buildSeconds = (performance.now() - started) / 1000;
  const recallAt10: Record<string, number> = {};
  const queryMs: Record<string, number> = {};
  for (const ef of EF) {
    graph.setEf(Math.max(ef, TOP_K));
    let hits = 0;
    const searching = performance.now();
    data.queries.forEach((query, q) => {
      for (const label of graph.searchKnn(query, TOP_K).neighbors) if ((data.truth[q] as Set<number>).has(label)) hits++;
    });
    queryMs[ef] = (performance.now() - searching) / data.queries.length;
    recallAt10[ef] = hits / (data.queries.length * TOP_K);
  }
  return { dataSet: data.name, efConstruction, buildSeconds, recallAt10, queryMs };
}

function main(): void {
  const builds: Build[] = [];
  for (const data of [scaleData(), mnistData()]) {
    if (!data) continue;
    console.log(`\n${data.name}: ${data.queries.length} queries, M ${HNSW_DEFAULTS.m}`);
    for (const efConstruction of VALUES) {
      const result = build(data, efConstruction);
      console.log(`  efConstruction ${efConstruction}: built in ${result.buildSeconds.toFixed(1)} s`);
      builds.push(result);
    }
  }
  const rows: Row[] = builds.map((result) => {
    const first = builds.find((other) => other.dataSet === result.dataSet) as Build;
    const row: Row = {
      data: result.dataSet,
      efConstruction: result.efConstruction,
      'build s': result.buildSeconds.toFixed(1),
      [`build / efC ${first.efConstruction}`]: (result.buildSeconds / first.buildSeconds).toFixed(2),
    };
    for (const ef of EF) row[`recall@10 ef ${ef}`] = (result.recallAt10[ef] as number).toFixed(4);
    for (const ef of EF) row[`ms ef ${ef}`] = (result.queryMs[ef] as number).toFixed(3);
    return row;
  });
  printTable(`efConstruction (default ${HNSW_DEFAULTS.efConstruction}), raw hnswlib-node builds`, rows);
  writeResult(`ef-construction-${COUNT}`, {
    parameters: { chunks: COUNT, values: VALUES, ef: EF, queries: QUERIES, m: HNSW_DEFAULTS.m, topK: TOP_K },
    builds,
  });
}

main();
