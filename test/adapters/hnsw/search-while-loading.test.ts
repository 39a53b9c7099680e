import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hnswIndex } from '../../../adapters/hnsw/index.js';
import type { IndexCollection, IndexEntry, IndexQuery, IndexVector, OpenResult, ScoredId, VectorIndex } from '../../../src/ports/index.js';
import { clusteredVectors } from '../../../src/testing/random.js';
import { InMemoryIndexSource as Source } from '../../../src/testing/vector-index-conformance.js';

const DIMENSIONS = 24;
const DATASTORE = 'ds-loading';
const COLLECTION: IndexCollection = { datastoreId: DATASTORE, dimensions: DIMENSIONS, model: 'model-a' };

function entries(count: number, seed = 4, prefix = 'c'): IndexEntry[] {
  return clusteredVectors({ count, dimensions: DIMENSIONS, clusters: 12, seed }).map((vector, i) => ({
    id: `${prefix}${i}`,
    vector,
    datasourceId: i % 50 === 7 ? 'rare' : `ds-${i % 3}`,
    customId: i % 2 === 0 ? 'even' : null,
  }));
}

/**
 * `source` as a store whose pass over every vector stops after its first page until `release()`:
 * the index answers `open` and searches while that pass is held. `fetched` counts the vectors
 * fetched by id for searches; `vectorsOf: false` leaves that method out.
 */
function heldSource(source: Source, options: { vectorsOf?: boolean; vectors?: (all: IndexVector[]) => IndexVector[] } = {}) {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let fetched = 0;
  const held = Object.assign(new Source(), { current: source.current, byId: source.byId });
  Object.assign(held, {
    async *vectors() {
      const all = (options.vectors ?? ((vectors) => vectors))([...source.byId.values()].map(({ id, vector }) => ({ id, vector })));
      yield all.slice(0, 100);
      await released;
      for (let at = 100; at < all.length; at += 300) yield all.slice(at, at + 300);
    },
    vectorsOf:
      options.vectorsOf === false
        ? undefined
        : async (ids: readonly string[]) => {
            fetched += ids.length;
            return source.vectorsOf(ids);
          },
  });
  return { source: held, release, fetched: () => fetched };
}

const QUERIES: (Omit<IndexQuery, 'vector'> & { seed: number })[] = [
  { seed: 1, topK: 10 },
  { seed: 2, topK: 25 },
  { seed: 3, topK: 5, filter: { datasourceIds: ['ds-1'] } },
  // Few matches: the exact scan.
  { seed: 4, topK: 5, filter: { datasourceIds: ['rare'] } },
  { seed: 5, topK: 8, filter: { customIds: ['even'] } },
];

async function answers(index: VectorIndex): Promise<ScoredId[][]> {
  return Promise.all(
    QUERIES.map(({ seed, ...query }) => {
      const [vector] = clusteredVectors({ count: 1, dimensions: DIMENSIONS, clusters: 12, seed: 100 + seed });
      return index.query(DATASTORE, { ...query, vector: vector as Float32Array });
    }),
  );
}

describe('hnsw: searches while a reopened collection loads its vectors', () => {
  let dir: string;
  const indexes: VectorIndex[] = [];
  const make = (): VectorIndex => {
    const index = hnswIndex({ dir, flushAfterMs: Number.POSITIVE_INFINITY });
    indexes.push(index);
    return index;
  };

  /** A collection of `count` entries with some removed, written to `dir`; its store and what a fully loaded index answers. */
  async function persisted(count: number): Promise<{ source: Source; expected: ScoredId[][] }> {
    const source = new Source();
    const index = make();
    await index.open(COLLECTION, source);
    const all = entries(count);
    await index.upsert(DATASTORE, all, source.put(all));
    const removed = all.filter((_, i) => i % 9 === 4).map((entry) => entry.id);
    await index.remove(DATASTORE, removed, source.delete(removed));
    await index.close();
    const loaded = make();
    const result = await loaded.open(COLLECTION, source);
    await result.ready;
    const expected = await answers(loaded);
    await loaded.close();
    return { source, expected };
  }

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ragdesk-hnsw-loading-'));
  });

  afterEach(async () => {
    await Promise.allSettled(indexes.splice(0).map((index) => index.close()));
    await rm(dir, { recursive: true, force: true });
  });

  it('answers before the store’s pass is over, exactly as the loaded graph does, fetching only what the walks reach', async () => {
    const { source, expected } = await persisted(3000);
    const held = heldSource(source);
    const index = make();
    const result = await index.open(COLLECTION, held.source);
    expect(result.rebuilt).toBe(false);
    expect(result.ready).toBeInstanceOf(Promise);
    let ready = false;
    const settled = result.ready?.then((final: OpenResult) => {
      ready = true;
      return final;
    });
    const early = await answers(index);
    expect(ready).toBe(false);
    expect(early).toEqual(expected);
    // The exact scan fetched the few entries its filter matches; the walks, a part of the graph.
    expect(held.fetched()).toBeGreaterThan(0);
    expect(held.fetched()).toBeLessThan(3000);
    held.release();
    expect(await settled).toEqual({ rebuilt: false });
    expect(await answers(index)).toEqual(expected);
  });

  it('holds writes until the pass is over, then applies them', async () => {
    const { source } = await persisted(800);
    const held = heldSource(source);
    const index = make();
    const result = await index.open(COLLECTION, held.source);
    // The store is left alone until `ready` (the contract): the write names the sequence it will have.
    const added = entries(3, 77, 'late');
    let written = false;
    const writing = index.upsert(DATASTORE, added, source.current + 1).then(() => (written = true));
    await answers(index);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(written).toBe(false);
    held.release();
    await result.ready;
    source.put(added);
    await writing;
    const [best] = await index.query(DATASTORE, { vector: (added[1] as IndexEntry).vector, topK: 1 });
    expect(best?.id).toBe('late1');
    expect(await index.count(DATASTORE)).toBe(source.byId.size);
  });

  it('without a way to fetch by id, searches wait for the pass and still answer', async () => {
    const { source, expected } = await persisted(600);
    const held = heldSource(source, { vectorsOf: false });
    const index = make();
    const result = await index.open(COLLECTION, held.source);
    let answered = false;
    const early = answers(index).then((found) => {
      answered = true;
      return found;
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(answered).toBe(false);
    held.release();
    expect(await early).toEqual(expected);
    await result.ready;
  });

  it('rebuilds when the pass finds the store and the file apart, and queries meanwhile get the rebuilt answers', async () => {
    const { source, expected } = await persisted(900);
    // The store's pass misses one live vector: not the pair the file was written with.
    const held = heldSource(source, { vectors: (all) => all.filter((entry) => entry.id !== 'c500') });
    const index = make();
    const result = await index.open(COLLECTION, held.source);
    expect(result.rebuilt).toBe(false);
    const during = answers(index);
    held.release();
    expect(await result.ready).toEqual({ rebuilt: true, reason: 'corrupt' });
    const found = await during;
    // The rebuilt graph holds the same entries; its walks may differ, the exact scan may not.
    expect(found[3]).toEqual(expected[3]);
    expect((found[0] as ScoredId[]).length).toBe(10);
    expect(await index.count(DATASTORE)).toBe(source.byId.size);
  });
});
