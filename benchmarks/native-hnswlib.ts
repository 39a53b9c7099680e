/**
 * bench:native-hnswlib — what compiling hnswlib-node for the CPU buys. npm compiles the addon with
 * the compiler's baseline flags, which leave out hnswlib's AVX / AVX-512 distance functions; this
 * compiles a second copy with `CXXFLAGS=-march=native` (the command the README gives users) in a
 * temporary folder, then builds the same graph with both addons, alternating, and searches it.
 *
 *   npm run bench:native-hnswlib -- [--chunks 50000] [--rounds 2] [--queries 200]
 *
 * Data: bench:scale's corpus (benchmarks/lib/scale-corpus.ts) at `--chunks`, 384-d cosine, M and
 * efConstruction of `hnswIndex`'s defaults, ef 100. Results: benchmarks/results/native-hnswlib.json.
 * Needs a C++ toolchain and Node's headers, as any install of hnswlib-node does.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HierarchicalNSW } from 'hnswlib-node';
import { HNSW_DEFAULTS } from '../adapters/hnsw/options.js';
import { hnswlibRoot } from './lib/hnswlib-build.js';
import { flags, PACKAGE_ROOT, printTable, writeResult, type Row } from './lib/report.js';
import { scaleCorpus } from './lib/scale-corpus.js';
import { exactTopK } from './lib/synthetic.js';

const args = flags(process.argv.slice(2));
const COUNT = Number(args.get('chunks') ?? 50_000);
const ROUNDS = Number(args.get('rounds') ?? 2);
const QUERIES = Number(args.get('queries') ?? 200);
const TOP_K = 10;
const require = createRequire(import.meta.url);

type GraphClass = typeof HierarchicalNSW;

/** Copies the installed package without its build and compiles it for this CPU. */
function compileNative(into: string): string {
  const app = join(into, 'app');
  mkdirSync(join(app, 'node_modules'), { recursive: true });
  writeFileSync(join(app, 'package.json'), '{"name":"native-hnswlib-bench","private":true}\n');
  cpSync(hnswlibRoot(), join(app, 'node_modules', 'hnswlib-node'), {
    recursive: true,
    filter: (path) => !path.includes(`${join('hnswlib-node', 'build')}`),
  });
  try {
    execFileSync('npm', ['rebuild', 'hnswlib-node', '--foreground-scripts'], {
      cwd: app,
      // binding.gyp asks Node for node-addon-api's headers: found through this checkout's modules.
      env: { ...process.env, CXXFLAGS: '-march=native', NODE_PATH: join(PACKAGE_ROOT, 'node_modules') },
      stdio: 'pipe',
    });
  } catch (error) {
    // The compiler's warnings are noise when it works; when it fails they are the reason.
    const { stderr } = error as { stderr?: Buffer | string };
    throw new Error(`compiling hnswlib-node with -march=native failed:\n${String(stderr ?? '').slice(-4000)}`, { cause: error });
  }
  return join(app, 'node_modules', 'hnswlib-node', 'build', 'Release', 'addon.node');
}

function loadGraphClass(addonPath: string): GraphClass {
  return (require(addonPath) as { HierarchicalNSW: GraphClass }).HierarchicalNSW;
}

interface Measure {
  addon: string;
  round: number;
  buildSeconds: number;
  queryMs: number;
  recallAt10: number;
}

function measure(name: string, round: number, Graph: GraphClass, vectors: number[][], queries: number[][], truth: Set<number>[]): Measure {
  const graph = new Graph('cosine', vectors[0]?.length ?? 0);
  graph.initIndex(vectors.length, HNSW_DEFAULTS.m, HNSW_DEFAULTS.efConstruction, 100);
  graph.setEf(HNSW_DEFAULTS.efSearch);
  const started = performance.now();
  vectors.forEach((vector, label) => graph.addPoint(vector, label));
  const buildSeconds = (performance.now() - started) / 1000;
  let found = 0;
  const searching = performance.now();
  // Five passes over the queries, so a query time is not one cold pass.
  for (let pass = 0; pass < 5; pass++) {
    queries.forEach((query, q) => {
      const { neighbors } = graph.searchKnn(query, TOP_K);
      if (pass === 0) for (const label of neighbors) if (truth[q]?.has(label)) found++;
    });
  }
  const queryMs = (performance.now() - searching) / (5 * queries.length);
  const result = { addon: name, round, buildSeconds, queryMs, recallAt10: found / (queries.length * TOP_K) };
  console.log(
    `[native-hnswlib] round ${round} ${name}: build ${buildSeconds.toFixed(1)} s, query ${queryMs.toFixed(3)} ms, recall@10 ${result.recallAt10.toFixed(4)}`,
  );
  return result;
}

function main(): void {
  const work = mkdtempSync(join(tmpdir(), 'ragdesk-native-hnswlib-'));
  try {
    console.log('[native-hnswlib] compiling hnswlib-node with CXXFLAGS=-march=native ...');
    const addons: Record<string, GraphClass> = {
      'npm default': loadGraphClass(join(hnswlibRoot(), 'build', 'Release', 'addon.node')),
      '-march=native': loadGraphClass(compileNative(work)),
    };
    const corpus = scaleCorpus(COUNT);
    const flat = Array.from({ length: COUNT }, (_, i) => corpus.chunk(i).vector);
    const vectors = flat.map((vector) => Array.from(vector));
    const queryVectors = Array.from({ length: QUERIES }, (_, q) => corpus.query(q).vector);
    const truth = queryVectors.map((query) => new Set(exactTopK(flat, query, TOP_K)));
    const queries = queryVectors.map((query) => Array.from(query));
    const measures: Measure[] = [];
    const names = Object.keys(addons);
    for (let round = 1; round <= ROUNDS; round++) {
      // Alternating order, so a host that changes speed mid-run does not favour one addon.
      for (const name of round % 2 === 1 ? names : [...names].reverse()) {
        measures.push(measure(name, round, addons[name] as GraphClass, vectors, queries, truth));
      }
    }
    const rows: Row[] = measures.map((m) => ({
      round: m.round,
      addon: m.addon,
      'build s': m.buildSeconds.toFixed(1),
      'query ms': m.queryMs.toFixed(3),
      'recall@10': m.recallAt10.toFixed(4),
    }));
    const sum = (name: string, key: 'buildSeconds' | 'queryMs') =>
      measures.filter((m) => m.addon === name).reduce((total, m) => total + m[key], 0);
    const buildRatio = sum('-march=native', 'buildSeconds') / sum('npm default', 'buildSeconds');
    const queryRatio = sum('-march=native', 'queryMs') / sum('npm default', 'queryMs');
    printTable(
      `hnswlib-node compiled for the CPU, ${COUNT} x ${corpus.dimensions} (M ${HNSW_DEFAULTS.m}, efConstruction ${HNSW_DEFAULTS.efConstruction}, ef ${HNSW_DEFAULTS.efSearch})`,
      rows,
    );
    console.log(`\nnative / default, summed over the rounds: build ${buildRatio.toFixed(2)}x, query ${queryRatio.toFixed(2)}x`);
    writeResult('native-hnswlib', {
      chunks: COUNT,
      dimensions: corpus.dimensions,
      parameters: { ...HNSW_DEFAULTS, queries: QUERIES, rounds: ROUNDS },
      measures,
      nativeOverDefault: { build: buildRatio, query: queryRatio },
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main();
