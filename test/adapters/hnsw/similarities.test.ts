/**
 * `similarities`: the cosine of a query with named points, read from the graph instead of the
 * store. It must equal the cosine of the vectors as given (not the graph's float-normalised copies)
 * within 1e-6, leave out what it cannot answer for (unknown, removed, still queued, not yet back
 * in a reopened graph), and answer again once those are settled.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nativeGraph } from '../../../adapters/hnsw/binding/native-graph.js';
import { hnswIndex, type HnswIndex } from '../../../adapters/hnsw/index.js';
import type { IndexCollection, IndexEntry, IndexVector, ScoredId } from '../../../src/ports/index.js';
import { seededRandom } from '../../../src/testing/random.js';
import { InMemoryIndexSource as Source } from '../../../src/testing/vector-index-conformance.js';
import { cosineSimilarity } from '../../../src/util/cosine.js';

const TOLERANCE = 1e-6;

/** Uniform random vectors with norms from 0.01 to 100 (the graph's unit copies must not show). */
function randomVectors(count: number, dimensions: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const scale = 10 ** (random() * 4 - 2);
    return Float32Array.from({ length: dimensions }, () => (random() * 2 - 1) * scale);
  });
}

function expectCosines(found: readonly ScoredId[], query: Float32Array, vectorOf: (id: string) => Float32Array): void {
  for (const { id, score } of found) {
    expect(Math.abs(score - cosineSimilarity(query, vectorOf(id))), id).toBeLessThanOrEqual(TOLERANCE);
  }
}

describe('hnsw graph: similarities of a query with named labels', () => {
  // 1,024 dimensions as the offline embedder's; 100 and 7 run the kernels' tail loops.
  it.each([1024, 100, 7])('equal the cosine of the vectors as given at %i dimensions', (dimensions) => {
    const count = 200;
    const vectors = randomVectors(count, dimensions, dimensions);
    const packed = new Float32Array(count * dimensions);
    vectors.forEach((vector, i) => packed.set(vector, i * dimensions));
    const graph = new (nativeGraph())(dimensions, count, 16, 100);
    try {
      graph.add(
        Uint32Array.from({ length: count }, (_, i) => i),
        new Uint8Array(count),
        packed,
        0,
        count,
        1,
      );
      graph.remove(5);
      for (const query of randomVectors(10, dimensions, dimensions + 1)) {
        // In no particular order, with a removed label and one never added.
        const labels = Uint32Array.from([199, 3, 5, 1000, 0, 42, 17, 120]);
        const scores = graph.similarities(query, labels);
        expect(scores.length).toBe(labels.length);
        labels.forEach((label, i) => {
          if (label === 5 || label === 1000) expect(scores[i], `label ${label}`).toBeNaN();
          else expect(Math.abs(scores[i]! - cosineSimilarity(query, vectors[label]!)), `label ${label}`).toBeLessThanOrEqual(TOLERANCE);
        });
      }
      // A zero vector is similar to nothing, as in the JavaScript cosine.
      expect(Array.from(graph.similarities(new Float32Array(dimensions), Uint32Array.of(0, 1)))).toEqual([0, 0]);
      expect(() => graph.similarities(new Float32Array(dimensions + 1), Uint32Array.of(0))).toThrow(/dimensions/);
    } finally {
      graph.release();
    }
  });
});

const DIMENSIONS = 64;
const DATASTORE = 'ds-similarities';
const COLLECTION: IndexCollection = { datastoreId: DATASTORE, dimensions: DIMENSIONS, model: 'model-a' };

function entries(count: number, seed: number, prefix = 'c'): IndexEntry[] {
  return randomVectors(count, DIMENSIONS, seed).map((vector, i) => ({
    id: `${prefix}${i}`,
    vector,
    datasourceId: `ds-${i % 3}`,
    customId: null,
  }));
}

describe('hnsw index: similarities', () => {
  let dir: string;
  const indexes: HnswIndex[] = [];
  const make = (): HnswIndex => {
    const index = hnswIndex({ dir, flushAfterMs: Number.POSITIVE_INFINITY });
    indexes.push(index);
    return index;
  };
  const [query] = randomVectors(1, DIMENSIONS, 99) as [Float32Array];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ragdesk-hnsw-similarities-'));
  });

  afterEach(async () => {
    await Promise.allSettled(indexes.splice(0).map((index) => index.close()));
    await rm(dir, { recursive: true, force: true });
  });

  it('answers for every live entry once indexed, never for removed or unknown ids, and follows updates', async () => {
    const source = new Source();
    const index = make();
    expect(await index.similarities(DATASTORE, query, ['c1'])).toEqual([]);
    await index.open(COLLECTION, source);
    const all = entries(500, 1);
    await index.upsert(DATASTORE, all, source.put(all));
    await index.indexed();
    const removed = ['c3', 'c4'];
    await index.remove(DATASTORE, removed, source.delete(removed));
    const updated = entries(10, 2).map((entry, i) => ({ ...entry, id: `c${20 + i}` }));
    await index.upsert(DATASTORE, updated, source.put(updated));
    // Queued changes are left out (their points are stale or half written), never answered wrong.
    const asked = ['c0', 'c3', 'c4', 'c20', 'c29', 'c499', 'unknown', 'c250'];
    const vectorOf = (id: string) => source.byId.get(id)!.vector;
    const early = await index.similarities(DATASTORE, query, asked);
    expect(early.map((hit) => hit.id)).not.toContain('c3');
    expect(early.map((hit) => hit.id)).not.toContain('unknown');
    expectCosines(early, query, vectorOf);
    await index.indexed();
    const settled = await index.similarities(DATASTORE, query, asked);
    expect(settled.map((hit) => hit.id).sort()).toEqual(['c0', 'c20', 'c250', 'c29', 'c499']);
    expectCosines(settled, query, vectorOf);
    expect(Math.abs(settled.find((hit) => hit.id === 'c20')!.score - cosineSimilarity(query, updated[0]!.vector))).toBeLessThanOrEqual(
      TOLERANCE,
    );
  });

  it('answers a reopened collection still loading its vectors for those it has, and for all once loaded', async () => {
    const source = new Source();
    const first = make();
    await first.open(COLLECTION, source);
    const all = entries(2000, 3);
    await first.upsert(DATASTORE, all, source.put(all));
    await first.close();

    // The store's pass stops after its first page until released.
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held = Object.assign(new Source(), { current: source.current, byId: source.byId });
    Object.assign(held, {
      async *vectors(): AsyncIterable<IndexVector[]> {
        const vectors = [...source.byId.values()].map(({ id, vector }) => ({ id, vector }));
        yield vectors.slice(0, 100);
        await released;
        for (let at = 100; at < vectors.length; at += 300) yield vectors.slice(at, at + 300);
      },
    });
    const index = make();
    const opened = await index.open(COLLECTION, held);
    expect(opened.ready).toBeInstanceOf(Promise);
    const ids = all.map((entry) => entry.id);
    const vectorOf = (id: string) => source.byId.get(id)!.vector;
    try {
      // A search lends the graph the vectors its walk reaches, which the store's pass has not sent.
      const hits = await index.query(DATASTORE, { vector: query, topK: 10 });
      const loading = await index.similarities(DATASTORE, query, ids);
      expect(loading.map((hit) => hit.id)).toEqual(expect.arrayContaining(hits.map((hit) => hit.id)));
      expect(loading.length).toBeLessThan(ids.length);
      expectCosines(loading, query, vectorOf);
    } finally {
      release();
    }
    await opened.ready;
    const loaded = await index.similarities(DATASTORE, query, ids);
    expect(loaded.length).toBe(ids.length);
    expectCosines(loaded, query, vectorOf);
  });

  it('refuses a query of other dimensions', async () => {
    const index = make();
    await index.open(COLLECTION, new Source());
    await expect(index.similarities(DATASTORE, new Float32Array(DIMENSIONS + 1), ['c0'])).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });
});
