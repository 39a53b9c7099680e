import { afterEach, describe, expect, it } from 'vitest';
import { GraphThread } from '../../adapters/hnsw/graph-thread.js';
import { RagdeskError } from '../../src/errors.js';
import { clusteredVectors } from '../../src/testing/random.js';

const DIMENSIONS = 64;

function packed(count: number, seed: number): Float32Array {
  const vectors = clusteredVectors({ count, dimensions: DIMENSIONS, clusters: 8, seed });
  const out = new Float32Array(count * DIMENSIONS);
  vectors.forEach((vector, i) => out.set(vector, i * DIMENSIONS));
  return out;
}

function create(thread: GraphThread, capacity = 16): number {
  const key = thread.newKey();
  thread.post({ op: 'create', key, dimensions: DIMENSIONS, capacity, m: 16, efConstruction: 200 });
  return key;
}

function add(thread: GraphThread, key: number, vectors: Float32Array, firstLabel = 0): void {
  const count = vectors.length / DIMENSIONS;
  const labels = Uint32Array.from({ length: count }, (_, i) => firstLabel + i);
  thread.post({ op: 'add', key, labels, update: new Uint8Array(count), vectors });
}

describe('the hnsw graph thread', () => {
  const threads: GraphThread[] = [];
  const started = () => {
    const thread = new GraphThread();
    threads.push(thread);
    return thread;
  };
  afterEach(async () => {
    await Promise.all(threads.splice(0).map((thread) => thread.close()));
  });

  it('answers a search of one graph between the inserts of another, and a search after an add sees all of it', async () => {
    const thread = started();
    const small = create(thread);
    add(thread, small, packed(10, 1));
    const big = create(thread);
    // Thousands of inserts at efConstruction 200: far longer than posting two searches.
    const vectors = packed(6000, 2);
    const last = vectors.slice(-DIMENSIONS);
    add(thread, big, vectors);
    const order: string[] = [];
    const ofBig = thread.search(big, last, 1, 64, null).then((found) => (order.push('big'), found));
    const ofSmall = thread.search(small, packed(1, 3), 3, 64, null).then((found) => (order.push('small'), found));
    const [bigFound, smallFound] = await Promise.all([ofBig, ofSmall]);
    expect(order).toEqual(['small', 'big']);
    expect(smallFound.labels).toHaveLength(3);
    // The search waited for the whole add sent before it: the last vector finds itself.
    expect([...bigFound.labels]).toEqual([5999]);
    expect(bigFound.scores[0]).toBeCloseTo(1, 5);
  });

  it('grows a graph past its capacity and reuses the slots of removed labels', async () => {
    const thread = started();
    const key = create(thread, 4);
    add(thread, key, packed(40, 4));
    thread.post({ op: 'remove', key, labels: Uint32Array.from({ length: 20 }, (_, i) => i) });
    add(thread, key, packed(20, 5), 40);
    const found = await thread.search(key, packed(1, 6), 40, 64, null);
    const labels = [...found.labels].sort((a, b) => a - b);
    expect(labels).toEqual(Array.from({ length: 40 }, (_, i) => 20 + i));
  });

  it('fails every later call on a graph once an op on it failed, and leaves other graphs alone', async () => {
    const thread = started();
    const healthy = create(thread);
    add(thread, healthy, packed(5, 7));
    const broken = create(thread);
    // A label the graph does not hold: hnswlib refuses to delete it.
    await expect(thread.request({ op: 'remove', key: broken, labels: Uint32Array.of(12345) })).rejects.toThrow(/hnsw graph/);
    expect(() => thread.check(broken)).toThrow(RagdeskError);
    await expect(thread.search(broken, packed(1, 8), 1, 64, null)).rejects.toMatchObject({ code: 'internal' });
    expect((await thread.search(healthy, packed(1, 8), 2, 64, null)).labels).toHaveLength(2);
  });

  it('does not keep the process waiting once closed, and closes with nothing started', async () => {
    await new GraphThread().close();
    const thread = started();
    add(thread, create(thread), packed(50, 9));
    await thread.close();
    await expect(thread.search(1, packed(1, 9), 1, 64, null)).rejects.toThrow();
  });
});
