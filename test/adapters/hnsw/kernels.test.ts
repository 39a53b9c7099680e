/**
 * The distance kernels (portable C++, AVX2 + FMA, AVX-512) answer alike, and so do the kernels of
 * `similarities` (portable, AVX2 + FMA, in double). Each runs in a child
 * process with RAGDESK_HNSW_KERNEL set, builds one graph of the same seeded vectors and answers the
 * same queries; the exact scan must rank the same neighbours with the same cosines (to float
 * rounding), and the graph search must find the same neighbours. A kernel this CPU lacks is
 * skipped with a printed reason.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST, ROOT, staleBuildReason } from '../../reliability/compiled.js';

const KERNELS = ['portable', 'avx2', 'avx512'] as const;

interface KernelAnswers {
  kernel: string;
  exact: { labels: number[]; scores: number[] }[];
  search: number[][];
  similarities: number[][];
}

// 100 dimensions: not a multiple of 8 or 16, so every wide kernel runs its tail loop too.
const SCRIPT = `
const Graph = require('node-gyp-build')(process.argv[1]).Graph;
let seed = 12345;
const random = () => ((seed = (Math.imul(seed ^ (seed >>> 15), 1 | seed) + 0x6d2b79f5) | 0) >>> 0) / 4294967296;
const dimensions = 100, count = 3000, queries = 40;
const vector = () => { const v = new Float32Array(dimensions); let n = 0; for (let i = 0; i < dimensions; i++) { v[i] = random() - 0.5; n += v[i] * v[i]; } for (let i = 0; i < dimensions; i++) v[i] /= Math.sqrt(n); return v; };
const vectors = new Float32Array(count * dimensions);
for (let i = 0; i < count; i++) vectors.set(vector(), i * dimensions);
const graph = new Graph(dimensions, count, 16, 200);
graph.add(Uint32Array.from({ length: count }, (_, i) => i), new Uint8Array(count), vectors, 0, count, 1);
const filter = { source: new Int32Array(count), tenant: new Int32Array(count).fill(-1), sources: null, tenants: null, nextLabel: count };
const exact = [], search = [], similarities = [];
const some = Uint32Array.from({ length: 50 }, (_, i) => (i * 37) % count);
for (let q = 0; q < queries; q++) {
  const query = vector();
  const all = graph.exact(query, filter, null);
  const order = Array.from(all.labels.keys()).sort((a, b) => all.scores[b] - all.scores[a]).slice(0, 10);
  exact.push({ labels: order.map((i) => all.labels[i]), scores: order.map((i) => all.scores[i]) });
  search.push(Array.from(graph.search(query, 10, 400, null, null).labels));
  similarities.push(Array.from(graph.similarities(query, some)));
}
process.stdout.write(JSON.stringify({ kernel: Graph.kernel(), exact, search, similarities }));
`;

function answersWith(kernel: string): KernelAnswers {
  const child = spawnSync(process.execPath, ['-e', SCRIPT, ROOT], {
    cwd: ROOT,
    env: { ...process.env, RAGDESK_HNSW_KERNEL: kernel },
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (child.status !== 0) throw new Error(`kernel ${kernel}: ${child.stderr}`);
  return JSON.parse(child.stdout) as KernelAnswers;
}

describe('HNSW distance kernels', () => {
  it('portable, AVX2 and AVX-512 rank the same neighbours with the same cosines', () => {
    const runs = KERNELS.map(answersWith);
    const ran = runs.filter((run, index) => {
      if (run.kernel === KERNELS[index]) return true;
      console.warn(`hnsw kernels: ${KERNELS[index]} skipped, this CPU runs ${run.kernel} at most`);
      return false;
    });
    expect(ran[0]?.kernel).toBe('portable');
    const [reference, ...others] = ran as [KernelAnswers, ...KernelAnswers[]];
    for (const other of others) {
      for (const [q, expected] of reference.exact.entries()) {
        const got = other.exact[q]!;
        expect(got.labels, `${other.kernel} query ${q}`).toEqual(expected.labels);
        for (const [i, score] of expected.scores.entries()) expect(got.scores[i]).toBeCloseTo(score, 5);
      }
      // Similarities are sums in double: only the order of the additions differs.
      for (const [q, expected] of reference.similarities.entries()) {
        for (const [i, score] of expected.entries())
          expect(Math.abs(other.similarities[q]![i]! - score), `${other.kernel} query ${q}`).toBeLessThan(1e-12);
      }
      // The graphs were built with each kernel's own rounding, so a walk may differ at a near tie;
      // over 40 queries x 10 neighbours, at most 1% may.
      let same = 0;
      for (const [q, labels] of reference.search.entries()) same += labels.filter((label) => other.search[q]!.includes(label)).length;
      expect(same / (reference.search.length * 10), other.kernel).toBeGreaterThanOrEqual(0.99);
    }
  });

  const skipReason = staleBuildReason(['adapters/hnsw/binding/native-graph.js']);
  it.skipIf(skipReason !== null)(
    `refuses a kernel it cannot run, naming what it can${skipReason ? ` (skipped: ${skipReason})` : ''}`,
    () => {
      const script = `import(process.argv[1]).then((m) => { try { m.nativeGraph(); console.log('loaded'); } catch (e) { console.log(JSON.stringify({ code: e.code, details: e.details })); } })`;
      const child = spawnSync(process.execPath, ['-e', script, pathToFileURL(join(DIST, 'adapters/hnsw/binding/native-graph.js')).href], {
        cwd: ROOT,
        env: { ...process.env, RAGDESK_HNSW_KERNEL: 'sse9' },
        encoding: 'utf8',
      });
      expect(JSON.parse(child.stdout)).toMatchObject({ code: 'invalid_request', details: { wanted: 'sse9', available: 'portable' } });
    },
  );
});
