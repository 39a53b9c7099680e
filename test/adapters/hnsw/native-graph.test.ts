import hnswlib from 'hnswlib-node';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nativeGraph } from '../../../adapters/hnsw/binding/native-graph.js';
import { clusteredVectors } from '../../../src/testing/random.js';

const DIMENSIONS = 32;
const COUNT = 300;

function build(threads: number) {
  const Graph = nativeGraph();
  const vectors = clusteredVectors({ count: COUNT, dimensions: DIMENSIONS, clusters: 4, seed: 7 });
  const packed = new Float32Array(COUNT * DIMENSIONS);
  vectors.forEach((vector, i) => packed.set(vector, i * DIMENSIONS));
  const graph = new Graph(DIMENSIONS, COUNT, 16, 100);
  graph.add(
    Uint32Array.from({ length: COUNT }, (_, i) => i),
    new Uint8Array(COUNT),
    packed,
    0,
    COUNT,
    threads,
  );
  return { graph, vectors };
}

describe("ragdesk's hnswlib binding", () => {
  const folders: string[] = [];
  afterEach(async () => {
    await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
  });

  it('names the distance kernel it chose for this CPU', () => {
    expect(['avx512', 'avx2', 'portable']).toContain(nativeGraph().kernel());
  });

  it('inserts on several threads and finds every vector as its own nearest', () => {
    const { graph, vectors } = build(3);
    expect(graph.count()).toBe(COUNT);
    let self = 0;
    vectors.forEach((vector, label) => {
      const found = graph.search(vector, 1, 64, null, null);
      if (found.labels[0] === label) self++;
    });
    expect(self).toBeGreaterThanOrEqual(COUNT - 3);
  });

  it('writes files hnswlib-node reads with the same answers, and reads the files it writes', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'ragdesk-native-graph-'));
    folders.push(folder);
    const { graph, vectors } = build(2);
    await graph.write(join(folder, 'ours.bin'));
    const theirs = new hnswlib.HierarchicalNSW('cosine', DIMENSIONS);
    await theirs.readIndex(join(folder, 'ours.bin'), true);
    theirs.setEf(64);
    // Their distance kernel may round differently from ours: the same graph gives the same nearest
    // and nearly the same five.
    for (const vector of vectors.slice(0, 20)) {
      const mine = [...graph.search(vector, 5, 64, null, null).labels];
      const found = theirs.searchKnn(Array.from(vector), 5).neighbors;
      expect(found[0]).toBe(mine[0]);
      expect(found.filter((label) => mine.includes(label)).length).toBeGreaterThanOrEqual(4);
    }
    await theirs.writeIndex(join(folder, 'theirs.bin'));
    const back = await nativeGraph().read(join(folder, 'theirs.bin'), DIMENSIONS);
    expect([...back.labels()].sort((a, b) => a - b)).toEqual(Array.from({ length: COUNT }, (_, i) => i));
    expect([...back.search(vectors[9] as Float32Array, 3, 64, null, null).labels]).toEqual([
      ...graph.search(vectors[9] as Float32Array, 3, 64, null, null).labels,
    ]);
  });

  it('filters by the label tables and hidden labels, and scans exactly only with tables', () => {
    const { graph, vectors } = build(2);
    const source = new Int32Array(COUNT).map((_, label) => label % 3);
    const tenant = new Int32Array(COUNT).fill(-1);
    source[5] = -1; // removed
    const filter = { source, tenant, sources: Int32Array.of(2), tenants: null, nextLabel: COUNT };
    const walked = graph.search(vectors[5] as Float32Array, 10, 64, filter, Uint32Array.of(8));
    expect(walked.labels).toHaveLength(10);
    expect([...walked.labels].every((label) => label % 3 === 2 && label !== 5 && label !== 8)).toBe(true);
    const scanned = graph.exact(vectors[5] as Float32Array, filter, Uint32Array.of(8));
    const expected = Array.from({ length: COUNT }, (_, label) => label).filter((label) => label % 3 === 2 && label !== 5 && label !== 8);
    expect([...scanned.labels]).toEqual(expected);
    expect(scanned.scores.every((score) => score >= -1 - 1e-9 && score <= 1 + 1e-9)).toBe(true);
    expect(() => graph.exact(vectors[5] as Float32Array, null as unknown as typeof filter, null)).toThrow(/label tables/);
  });

  it('shares a graph by number, and frees it once every holder released it', () => {
    const Graph = nativeGraph();
    const { graph, vectors } = build(1);
    const handle = graph.share();
    const attached = Graph.attach(handle);
    expect(attached).not.toBeNull();
    const query = vectors[42] as Float32Array;
    expect([...(attached?.search(query, 5, 64, null, null).labels ?? [])]).toEqual([...graph.search(query, 5, 64, null, null).labels]);
    graph.release();
    expect(() => graph.count()).toThrow(/released/);
    // The other holder still has it.
    expect(attached?.count()).toBe(COUNT);
    attached?.release();
    expect(Graph.attach(handle)).toBeNull();
  });
});
