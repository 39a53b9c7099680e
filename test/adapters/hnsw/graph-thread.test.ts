import { afterEach, describe, expect, it } from 'vitest';
import { GraphThread } from '../../../adapters/hnsw/graph/graph-thread.js';
import { RagdeskError } from '../../../src/errors.js';
import { clusteredVectors } from '../../../src/testing/random.js';

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
    const thread = new GraphThread(2);
    threads.push(thread);
    return thread;
  };
  afterEach(async () => {
    await Promise.all(threads.splice(0).map((thread) => thread.close()));
  });

  it('answers a search at once, while the inserts sent before it run, and it sees their vectors', async () => {
    const thread = started();
    const small = create(thread);
    add(thread, small, packed(10, 1));
    const big = create(thread);
    // Thousands of inserts at efConstruction 200: far longer than posting two searches.
    const vectors = packed(6000, 2);
    const last = vectors.slice(-DIMENSIONS);
    const count = vectors.length / DIMENSIONS;
    const order: string[] = [];
    const inserted = thread
      .request({ op: 'add', key: big, labels: Uint32Array.from({ length: count }, (_, i) => i), update: new Uint8Array(count), vectors })
      .then(() => order.push('inserted'));
    const ofBig = thread.search(big, last, 1, 64, null).then((found) => (order.push('big'), found));
    const ofSmall = thread.search(small, packed(1, 3), 3, 64, null).then((found) => (order.push('small'), found));
    const [bigFound, smallFound] = await Promise.all([ofBig, ofSmall, inserted]);
    expect(order.indexOf('inserted')).toBe(2);
    expect(smallFound.labels).toHaveLength(3);
    // The last vector is still queued when the search is answered: the exact scan finds it.
    expect([...bigFound.labels]).toEqual([5999]);
    expect(bigFound.scores[0]).toBeCloseTo(1, 5);
  });

  it('searches the shared graph here while the thread inserts into it and grows it', async () => {
    const thread = started();
    // Capacity 4 and 40 adds of 100: the graph is resized ten times while the searches run.
    const key = create(thread, 4);
    const count = 4000;
    const per = 100;
    const vectors = packed(count, 20);
    const vectorOf = (label: number) => vectors.subarray(label * DIMENSIONS, (label + 1) * DIMENSIONS);
    for (let from = 0; from < count; from += per) add(thread, key, vectors.slice(from * DIMENSIONS, (from + per) * DIMENSIONS), from);
    let indexed = false;
    const allIndexed = thread.indexed().then(() => (indexed = true));
    let searches = 0;
    let foundItself = 0;
    while (!indexed) {
      const label = (searches * 397) % count;
      const found = await thread.search(key, vectorOf(label), 3, 64, null);
      // Sent after every add: the label is in the graph or in the scanned queue. The graph is
      // approximate (3 of these 4,000 miss themselves once built), so the count is checked below.
      expect(found.labels).toHaveLength(3);
      if (found.labels[0] === label) foundItself++;
      searches++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await allIndexed;
    expect(searches).toBeGreaterThan(10);
    expect(foundItself / searches).toBeGreaterThan(0.9);
    let self = 0;
    for (let label = 0; label < count; label += 40)
      if ((await thread.search(key, vectorOf(label), 1, 64, null)).labels[0] === label) self++;
    expect(self).toBeGreaterThanOrEqual(95);
  });

  it('hides queued updates and removals from the graph and scores the queued vectors exactly', async () => {
    const thread = started();
    const key = create(thread, 64);
    const base = packed(50, 10);
    add(thread, key, base);
    await thread.indexed();
    const vectorOf = (label: number) => base.slice(label * DIMENSIONS, (label + 1) * DIMENSIONS);
    // A long add keeps the thread busy; the update of label 3 (to label 7's vector) and the removal
    // of label 5 queue behind it.
    const order: string[] = [];
    const busy = packed(5000, 11);
    const busyCount = busy.length / DIMENSIONS;
    const inserted = thread
      .request({
        op: 'add',
        key,
        labels: Uint32Array.from({ length: busyCount }, (_, i) => 100 + i),
        update: new Uint8Array(busyCount),
        vectors: busy,
      })
      .then(() => order.push('inserted'));
    thread.post({ op: 'add', key, labels: Uint32Array.of(3), update: Uint8Array.of(1), vectors: vectorOf(7) });
    thread.post({ op: 'remove', key, labels: Uint32Array.of(5) });
    const searches = [vectorOf(7), vectorOf(5), vectorOf(3)].map((vector) => thread.search(key, vector, 5, 64, null));
    const [nearSeven, nearFive, nearOldThree] = await Promise.all(
      searches.map((search) => search.then((found) => (order.push('found'), found))),
    );
    await inserted;
    expect(order.at(-1)).toBe('inserted');
    // Label 3 now holds label 7's vector: both score 1 for it.
    const top = [...(nearSeven as { labels: Uint32Array }).labels].slice(0, 2).sort((a, b) => a - b);
    expect(top).toEqual([3, 7]);
    expect([...(nearFive as { labels: Uint32Array }).labels]).not.toContain(5);
    // Label 3's old vector is gone: what it finds for label 3, if anything, is the new vector's score.
    const at = [...(nearOldThree as { labels: Uint32Array }).labels].indexOf(3);
    if (at >= 0) expect((nearOldThree as { scores: Float64Array }).scores[at]).toBeLessThan(0.999);
  });

  it('keeps to the filter over queued vectors', async () => {
    const thread = started();
    const key = create(thread, 64);
    const tables = {
      source: new Int32Array(new SharedArrayBuffer(4 * 6000)).fill(-1),
      tenant: new Int32Array(new SharedArrayBuffer(4 * 6000)).fill(-1),
    };
    const vectors = packed(6000, 12);
    // Even labels belong to datasource 0, odd ones to datasource 1.
    for (let label = 0; label < 6000; label++) tables.source[label] = label % 2;
    add(thread, key, vectors);
    const query = vectors.slice(5999 * DIMENSIONS);
    const found = await thread.search(key, query, 10, 64, { sources: [0], tenants: null, exact: false, nextLabel: 6000, tables });
    expect(found.labels.length).toBe(10);
    expect([...found.labels].every((label) => label % 2 === 0)).toBe(true);
    await thread.indexed();
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
    await new GraphThread(2).close();
    const thread = started();
    add(thread, create(thread), packed(50, 9));
    await thread.close();
    await expect(thread.search(1, packed(1, 9), 1, 64, null)).rejects.toThrow();
  });
});
