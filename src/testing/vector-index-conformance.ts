import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RagdeskError } from '../errors.js';
import type {
  IndexCollection,
  IndexEntry,
  IndexSource,
  IndexVector,
  OpenResult,
  RetrievalFilter,
  ScoredId,
  VectorIndex,
} from '../ports/index.js';
import { clusteredVectors } from './random.js';
import { cosineSimilarity } from '../util/cosine.js';

/**
 * How the suite gets instances of the adapter under test. Every test starts with `create()` and
 * ends with `close()` on the last instance, then `cleanup()`.
 */
export interface VectorIndexHarness {
  /**
   * A new, empty index with nothing persisted (e.g. over a fresh temporary directory). Give it a
   * small initial capacity (a few dozen) so the growth test really grows it.
   */
  create(): Promise<VectorIndex>;
  /**
   * A new instance over the state persisted by the last `create()` (the previous instance is
   * already closed). Omit for in-memory adapters: the persistence tests are then skipped and the
   * suite expects `open` to always rebuild.
   */
  reopen?(): Promise<VectorIndex>;
  /**
   * Damages the persisted files of a collection while no instance has it open: `delete` removes
   * the index data, `truncate` cuts it in half. The next `open` must notice and rebuild.
   */
  corrupt?(datastoreId: string, how: 'delete' | 'truncate'): Promise<void>;
  /** Removes whatever `create` made (temporary directories). */
  cleanup?(): Promise<void>;
}

const DIMENSIONS = 32;
const MODEL = 'conformance-model';
const DATASTORE = 'datastore-conformance';

/**
 * `index.open`, then what loading came to: an index may answer `open` while it still loads
 * (`OpenResult.ready`), and find only then that it must rebuild.
 */
export async function openSettled(index: VectorIndex, collection: IndexCollection, source: IndexSource): Promise<OpenResult> {
  const result = await index.open(collection, source);
  return result.ready ? await result.ready : result;
}

/** An in-memory Store stand-in: the source of truth an index under test is kept in step with. */
export class InMemoryIndexSource implements IndexSource {
  readonly byId = new Map<string, IndexEntry>();
  current = 0;

  /** Applies entries to the "store" and returns the new sequence, as a Store would. */
  put(entries: readonly IndexEntry[]): number {
    for (const entry of entries) this.byId.set(entry.id, entry);
    return ++this.current;
  }

  delete(ids: readonly string[]): number {
    for (const id of ids) this.byId.delete(id);
    return ++this.current;
  }

  async sequence(): Promise<number> {
    return this.current;
  }

  async *entries(): AsyncIterable<IndexEntry[]> {
    const all = [...this.byId.values()];
    for (let i = 0; i < all.length; i += 250) yield all.slice(i, i + 250);
  }

  async vectorsOf(ids: readonly string[]): Promise<IndexVector[]> {
    return ids.flatMap((id) => {
      const entry = this.byId.get(id);
      return entry ? [{ id, vector: entry.vector }] : [];
    });
  }

  /** Ids and vectors only, newest first: another order and other batches than `entries`. */
  async *vectors(): AsyncIterable<IndexVector[]> {
    const all = [...this.byId.values()].reverse();
    for (let i = 0; i < all.length; i += 333) yield all.slice(i, i + 333).map(({ id, vector }) => ({ id, vector }));
  }
}

interface EntryShape {
  prefix?: string;
  seed?: number;
  dimensions?: number;
  /** Datasource of entry i (default: one of four). */
  datasource?: (i: number) => string;
  /** Custom id of entry i (default: one of three tenants, every fifth entry has none). */
  customId?: (i: number) => string | null;
}

function makeEntries(count: number, shape: EntryShape = {}): IndexEntry[] {
  const vectors = clusteredVectors({ count, dimensions: shape.dimensions ?? DIMENSIONS, clusters: 20, seed: shape.seed ?? 7 });
  return vectors.map((vector, i) => ({
    id: `${shape.prefix ?? 'chunk'}-${String(i).padStart(5, '0')}`,
    vector,
    datasourceId: shape.datasource?.(i) ?? `ds-${i % 4}`,
    customId: shape.customId ? shape.customId(i) : i % 5 === 4 ? null : `tenant-${i % 3}`,
  }));
}

/** Query vectors near the same clusters as `makeEntries` with the same seed, but not inserted. */
function makeQueries(count: number, seed = 7, dimensions = DIMENSIONS): Float32Array[] {
  return clusteredVectors({ count: 4000 + count, dimensions, clusters: 20, seed }).slice(4000);
}

function matches(entry: IndexEntry, filter: RetrievalFilter | undefined): boolean {
  const datasources = filter?.datasourceIds ?? [];
  const customIds = filter?.customIds ?? [];
  return (
    (datasources.length === 0 || datasources.includes(entry.datasourceId)) &&
    (customIds.length === 0 || (entry.customId !== null && customIds.includes(entry.customId)))
  );
}

/** Ground truth: exact cosine over every matching entry. */
function bruteForce(entries: Iterable<IndexEntry>, vector: Float32Array, topK: number, filter?: RetrievalFilter): ScoredId[] {
  const hits: ScoredId[] = [];
  for (const entry of entries) if (matches(entry, filter)) hits.push({ id: entry.id, score: cosineSimilarity(vector, entry.vector) });
  return hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, topK);
}

function recall(found: ScoredId[], truth: ScoredId[]): number {
  if (truth.length === 0) return 1;
  const ids = new Set(found.map((hit) => hit.id));
  return truth.filter((hit) => ids.has(hit.id)).length / truth.length;
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, `expected a RagdeskError with code ${code}`).toBeDefined();
  expect(RagdeskError.isInstance(error) ? error.code : error).toBe(code);
}

function collection(overrides: Partial<IndexCollection> = {}): IndexCollection {
  return { datastoreId: DATASTORE, dimensions: DIMENSIONS, model: MODEL, ...overrides };
}

/**
 * Registers the `VectorIndex` conformance tests for one adapter. A new adapter is done when these pass.
 *
 * ```ts
 * describeVectorIndexConformance('hnsw', { create: async () => hnswIndex({ dir: await mkdtemp(...) }) });
 * ```
 */
export function describeVectorIndexConformance(name: string, harness: VectorIndexHarness): void {
  describe(`VectorIndex conformance: ${name}`, () => {
    let index: VectorIndex;
    let source: InMemoryIndexSource;

    /** Mirrors a Store write into the index, with the sequence the store reports. */
    async function put(entries: readonly IndexEntry[], datastoreId = DATASTORE, into = source): Promise<void> {
      await index.upsert(datastoreId, entries, into.put(entries));
    }

    async function reopen(): Promise<VectorIndex> {
      if (!harness.reopen) throw new Error('harness has no reopen');
      await index.close();
      index = await harness.reopen();
      return index;
    }

    beforeEach(async () => {
      index = await harness.create();
      source = new InMemoryIndexSource();
    });

    afterEach(async () => {
      await index.close();
      await harness.cleanup?.();
    });

    it('has a name and opens an empty collection', async () => {
      expect(typeof index.name).toBe('string');
      const result = await index.open(collection(), source);
      expect(result.rebuilt).toBe(true);
      expect(typeof result.reason).toBe('string');
      expect(await index.count(DATASTORE)).toBe(0);
      expect(await index.query(DATASTORE, { vector: new Float32Array(DIMENSIONS).fill(1), topK: 5 })).toEqual([]);
    });

    it('open is idempotent', async () => {
      await index.open(collection(), source);
      await put(makeEntries(50));
      await index.open(collection(), source);
      expect(await index.count(DATASTORE)).toBe(50);
    });

    it('returns an entry first for its own vector, with score ≈ 1, best first', async () => {
      await index.open(collection(), source);
      const entries = makeEntries(300);
      await put(entries);
      for (const entry of entries.slice(0, 20)) {
        const hits = await index.query(DATASTORE, { vector: entry.vector, topK: 10 });
        expect(hits).toHaveLength(10);
        expect(hits[0]?.id).toBe(entry.id);
        expect(hits[0]?.score).toBeCloseTo(1, 4);
        for (let i = 1; i < hits.length; i++) expect((hits[i] as ScoredId).score).toBeLessThanOrEqual((hits[i - 1] as ScoredId).score);
      }
      const opposite = (entries[0] as IndexEntry).vector.map((value) => -value);
      const all = await index.query(DATASTORE, { vector: opposite, topK: 1000 });
      expect(all).toHaveLength(300);
      expect(all.at(-1)?.id).toBe(entries[0]?.id);
      expect(all.at(-1)?.score).toBeCloseTo(-1, 4);
    });

    it('reaches recall@10 ≥ 0.9 against exact search on 2000 clustered vectors', async () => {
      await index.open(collection(), source);
      const entries = makeEntries(2000);
      for (let i = 0; i < entries.length; i += 200) await put(entries.slice(i, i + 200));
      let total = 0;
      const queries = makeQueries(100);
      const exact = new Map(entries.map((entry) => [entry.id, entry]));
      for (const vector of queries) {
        const hits = await index.query(DATASTORE, { vector, topK: 10 });
        total += recall(hits, bruteForce(entries, vector, 10));
        for (const hit of hits) expect(hit.score).toBeCloseTo(cosineSimilarity(vector, (exact.get(hit.id) as IndexEntry).vector), 3);
      }
      expect(total / queries.length).toBeGreaterThanOrEqual(0.9);
    });

    it('grows past its initial capacity', async () => {
      await index.open(collection(), source);
      const entries = makeEntries(1500);
      for (let i = 0; i < entries.length; i += 100) await put(entries.slice(i, i + 100));
      expect(await index.count(DATASTORE)).toBe(1500);
      for (const entry of [entries[0], entries[777], entries[1499]] as IndexEntry[]) {
        const [best] = await index.query(DATASTORE, { vector: entry.vector, topK: 1 });
        expect(best?.id).toBe(entry.id);
      }
    });

    it('removes entries, never returns them again, and reuses their room', async () => {
      await index.open(collection(), source);
      const entries = makeEntries(400);
      await put(entries);
      const removed = entries.filter((_, i) => i < 300 && i % 2 === 0).map((entry) => entry.id);
      await index.remove(DATASTORE, [...removed, 'no-such-id'], source.delete(removed));
      expect(await index.count(DATASTORE)).toBe(250);
      const gone = new Set(removed);
      for (const vector of makeQueries(20)) {
        const hits = await index.query(DATASTORE, { vector, topK: 50 });
        expect(hits).toHaveLength(50);
        for (const hit of hits) expect(gone.has(hit.id)).toBe(false);
      }
      const fresh = makeEntries(150, { prefix: 'fresh', seed: 11 });
      await put(fresh);
      expect(await index.count(DATASTORE)).toBe(400);
      for (const entry of fresh.slice(0, 10)) {
        const [best] = await index.query(DATASTORE, { vector: entry.vector, topK: 1 });
        expect(best?.id).toBe(entry.id);
      }
      const back = entries[0] as IndexEntry;
      await put([back]);
      expect(await index.count(DATASTORE)).toBe(401);
      expect((await index.query(DATASTORE, { vector: back.vector, topK: 1 }))[0]?.id).toBe(back.id);
      for (const vector of makeQueries(10, 7)) {
        for (const hit of await index.query(DATASTORE, { vector, topK: 100 })) {
          if (hit.id !== back.id) expect(gone.has(hit.id)).toBe(false);
        }
      }
    });

    it('replaces the vector and attributes of an id upserted again', async () => {
      await index.open(collection(), source);
      const entries = makeEntries(200);
      await put(entries);
      const target = entries[5] as IndexEntry;
      const elsewhere = (entries[6] as IndexEntry).vector.map((value, i) => value + (i % 2 === 0 ? 0.5 : -0.5));
      await put([{ ...target, vector: elsewhere, datasourceId: 'moved', customId: 'tenant-moved' }]);
      expect(await index.count(DATASTORE)).toBe(200);
      const [best] = await index.query(DATASTORE, { vector: elsewhere, topK: 1 });
      expect(best).toMatchObject({ id: target.id });
      expect(best?.score).toBeCloseTo(1, 4);
      const old = await index.query(DATASTORE, { vector: target.vector, topK: 5 });
      expect(old.find((hit) => hit.id === target.id)?.score ?? 0).toBeLessThan(0.999);
      expect((await index.query(DATASTORE, { vector: elsewhere, topK: 5, filter: { datasourceIds: ['moved'] } })).map((h) => h.id)).toEqual(
        [target.id],
      );
      expect(
        (await index.query(DATASTORE, { vector: elsewhere, topK: 5, filter: { customIds: ['tenant-moved'] } })).map((h) => h.id),
      ).toEqual([target.id]);
      const before = await index.query(DATASTORE, { vector: elsewhere, topK: 200, filter: { datasourceIds: [target.datasourceId] } });
      expect(before.some((hit) => hit.id === target.id)).toBe(false);
    });

    describe('filters', () => {
      const all = makeEntries(2000, {
        datasource: (i) => (i % 400 === 7 ? 'rare' : `ds-${i % 4}`),
        customId: (i) => (i % 500 === 3 ? 'vip' : i % 5 === 4 ? null : `tenant-${i % 3}`),
      });
      const byId = new Map(all.map((entry) => [entry.id, entry]));
      const cases: [string, RetrievalFilter][] = [
        ['one datasource', { datasourceIds: ['ds-1'] }],
        ['two datasources', { datasourceIds: ['ds-0', 'ds-2'] }],
        ['one custom id', { customIds: ['tenant-2'] }],
        ['datasource and custom id', { datasourceIds: ['ds-1', 'ds-3'], customIds: ['tenant-0'] }],
      ];

      beforeEach(async () => {
        await index.open(collection(), source);
        for (let i = 0; i < all.length; i += 500) await put(all.slice(i, i + 500));
      });

      for (const [label, filter] of cases) {
        it(`holds in every result: ${label}`, async () => {
          let total = 0;
          const queries = makeQueries(30);
          for (const vector of queries) {
            const hits = await index.query(DATASTORE, { vector, topK: 10, filter });
            expect(hits).toHaveLength(10);
            for (const hit of hits) expect(matches(byId.get(hit.id) as IndexEntry, filter)).toBe(true);
            total += recall(hits, bruteForce(all, vector, 10, filter));
          }
          expect(total / queries.length).toBeGreaterThanOrEqual(0.9);
        });
      }

      it('treats empty lists as no restriction', async () => {
        const vector = makeQueries(1)[0] as Float32Array;
        const plain = await index.query(DATASTORE, { vector, topK: 10 });
        const empty = await index.query(DATASTORE, { vector, topK: 10, filter: { datasourceIds: [], customIds: [] } });
        expect(empty.map((hit) => hit.id)).toEqual(plain.map((hit) => hit.id));
      });

      it('returns every match of a very selective filter', async () => {
        const rare = all.filter((entry) => entry.datasourceId === 'rare');
        expect(rare).toHaveLength(5);
        for (const vector of makeQueries(5)) {
          const hits = await index.query(DATASTORE, { vector, topK: 10, filter: { datasourceIds: ['rare'] } });
          expect(hits.map((hit) => hit.id).sort()).toEqual(rare.map((entry) => entry.id).sort());
          const top3 = await index.query(DATASTORE, { vector, topK: 3, filter: { datasourceIds: ['rare'] } });
          expect(top3.map((hit) => hit.id)).toEqual(bruteForce(all, vector, 3, { datasourceIds: ['rare'] }).map((hit) => hit.id));
          const vip = await index.query(DATASTORE, { vector, topK: 10, filter: { customIds: ['vip'] } });
          expect(vip).toHaveLength(4);
          const both = { datasourceIds: ['ds-3'], customIds: ['vip'] };
          const expected = bruteForce(all, vector, 10, both);
          expect(expected.length).toBeGreaterThan(0);
          const mixed = await index.query(DATASTORE, { vector, topK: 10, filter: both });
          expect(mixed.map((hit) => hit.id)).toEqual(expected.map((hit) => hit.id));
        }
      });

      it('returns nothing when nothing matches', async () => {
        const vector = makeQueries(1)[0] as Float32Array;
        expect(await index.query(DATASTORE, { vector, topK: 10, filter: { datasourceIds: ['unknown'] } })).toEqual([]);
        expect(await index.query(DATASTORE, { vector, topK: 10, filter: { datasourceIds: ['rare'], customIds: ['vip'] } })).toEqual([]);
      });
    });

    it('scores named entries against a vector (similarities, when the index has it)', async (context) => {
      if (!index.similarities) {
        context.skip();
        return;
      }
      const [vector] = makeQueries(1) as [Float32Array];
      // A collection that is not open answers for nothing.
      expect(await index.similarities(DATASTORE, vector, ['chunk-00000'])).toEqual([]);
      await index.open(collection(), source);
      const entries = makeEntries(200);
      await put(entries);
      const removed = entries.slice(0, 5).map((entry) => entry.id);
      await index.remove(DATASTORE, removed, source.delete(removed));
      const moved = { ...(entries[7] as IndexEntry), vector: (entries[150] as IndexEntry).vector };
      await put([moved]);
      const asked = [...entries.slice(0, 40).map((entry) => entry.id), 'unknown'];
      const live = asked.filter((id) => source.byId.has(id));
      /** Every id answered is live and scored as the cosine of its current vector; left-out ids are allowed. */
      const answered = async (): Promise<string[]> => {
        const found = await index.similarities!(DATASTORE, vector, asked);
        for (const { id, score } of found) {
          expect(live, id).toContain(id);
          expect(Math.abs(score - cosineSimilarity(vector, (source.byId.get(id) as IndexEntry).vector)), id).toBeLessThanOrEqual(1e-6);
        }
        return found.map((hit) => hit.id).sort();
      };
      // An index may leave out entries it is still changing; once reopened and loaded it has them all.
      const first = await answered();
      if (harness.reopen) {
        await reopen();
        await openSettled(index, collection(), source);
        expect(await answered()).toEqual([...live].sort());
      } else {
        expect(first).toEqual([...live].sort());
      }
      await expectCode(index.similarities(DATASTORE, new Float32Array(DIMENSIONS + 1), live), 'invalid_request');
    });

    it('rejects vectors of the wrong length with invalid_request', async () => {
      await index.open(collection(), source);
      await put(makeEntries(10));
      const bad = makeEntries(3, { dimensions: DIMENSIONS + 1, prefix: 'bad' });
      await expectCode(index.upsert(DATASTORE, bad, source.current + 1), 'invalid_request');
      expect(await index.count(DATASTORE)).toBe(10);
      await expectCode(index.query(DATASTORE, { vector: new Float32Array(DIMENSIONS - 1), topK: 3 }), 'invalid_request');
    });

    it('rejects a non-finite component, an empty id and a vector that is not a Float32Array with invalid_request', async () => {
      await index.open(collection(), source);
      const [entry] = makeEntries(1, { prefix: 'odd' }) as [IndexEntry];
      const poisoned = new Float32Array(entry.vector);
      poisoned[1] = Number.NaN;
      const plain = Array.from(entry.vector) as unknown as Float32Array;
      for (const bad of [
        { ...entry, vector: poisoned },
        { ...entry, id: '' },
        { ...entry, vector: plain },
      ]) {
        await expectCode(index.upsert(DATASTORE, [bad], source.current + 1), 'invalid_request');
      }
      await expectCode(index.query(DATASTORE, { vector: poisoned, topK: 3 }), 'invalid_request');
      await expectCode(index.query(DATASTORE, { vector: plain, topK: 3 }), 'invalid_request');
    });

    it('rejects calls for a collection that is not open with not_found', async () => {
      const vector = new Float32Array(DIMENSIONS).fill(1);
      await expectCode(index.query('never-opened', { vector, topK: 1 }), 'not_found');
      await expectCode(index.upsert('never-opened', makeEntries(1), 1), 'not_found');
      await expectCode(index.remove('never-opened', ['x'], 1), 'not_found');
      await expectCode(index.count('never-opened'), 'not_found');
    });

    it('keeps datastores apart', async () => {
      const other = new InMemoryIndexSource();
      await index.open(collection(), source);
      await index.open(collection({ datastoreId: 'datastore-other' }), other);
      await put(makeEntries(40));
      await put(makeEntries(25, { prefix: 'other', seed: 3 }), 'datastore-other', other);
      expect(await index.count(DATASTORE)).toBe(40);
      expect(await index.count('datastore-other')).toBe(25);
      const hits = await index.query('datastore-other', { vector: makeQueries(1)[0] as Float32Array, topK: 100 });
      expect(hits.every((hit) => hit.id.startsWith('other-'))).toBe(true);
    });

    it('drops a collection', async () => {
      await index.open(collection(), source);
      await put(makeEntries(60));
      await index.drop(DATASTORE);
      await expectCode(index.count(DATASTORE), 'not_found');
      const again = await index.open(collection(), source);
      expect(again.rebuilt).toBe(true);
      expect(await index.count(DATASTORE)).toBe(60);
    });

    it('flushes, and closes idempotently; later calls fail with closed', async () => {
      await index.open(collection(), source);
      await put(makeEntries(30));
      await index.flush(DATASTORE);
      await index.flush();
      await index.close();
      await index.close();
      await expectCode(index.query(DATASTORE, { vector: new Float32Array(DIMENSIONS), topK: 1 }), 'closed');
    });

    it.skipIf(harness.reopen !== undefined)('rebuilds from the source on every open (in memory)', async () => {
      source.put(makeEntries(120));
      const result = await index.open(collection(), source);
      expect(result.rebuilt).toBe(true);
      expect(await index.count(DATASTORE)).toBe(120);
    });

    describe.skipIf(harness.reopen === undefined)('persistence', () => {
      it('reloads without a rebuild when the sequence matches', async () => {
        await index.open(collection(), source);
        const entries = makeEntries(300);
        await put(entries);
        const removed = entries.slice(0, 20).map((entry) => entry.id);
        await index.remove(DATASTORE, removed, source.delete(removed));
        const queries = makeQueries(5);
        const before = await Promise.all(queries.map((vector) => index.query(DATASTORE, { vector, topK: 10 })));
        await reopen();
        expect(await openSettled(index, collection(), source)).toEqual({ rebuilt: false });
        expect(await index.count(DATASTORE)).toBe(280);
        const after = await Promise.all(queries.map((vector) => index.query(DATASTORE, { vector, topK: 10 })));
        expect(after.map((hits) => hits.map((hit) => hit.id))).toEqual(before.map((hits) => hits.map((hit) => hit.id)));
        const [best] = await index.query(DATASTORE, {
          vector: (entries[100] as IndexEntry).vector,
          topK: 1,
          filter: { datasourceIds: ['ds-0'] },
        });
        expect(best?.id).toBe(entries[100]?.id);
      });

      it('rebuilds when the source is ahead of the persisted index (stale)', async () => {
        await index.open(collection(), source);
        await put(makeEntries(200));
        await reopen();
        const late = makeEntries(50, { prefix: 'late', seed: 5 });
        source.put(late); // the store moved on while the index was closed
        expect(await openSettled(index, collection(), source)).toEqual({ rebuilt: true, reason: 'stale' });
        expect(await index.count(DATASTORE)).toBe(250);
        expect((await index.query(DATASTORE, { vector: (late[0] as IndexEntry).vector, topK: 1 }))[0]?.id).toBe(late[0]?.id);
      });

      it('rebuilds when the model or the dimensions changed', async () => {
        await index.open(collection(), source);
        await put(makeEntries(80));
        await reopen();
        expect(await openSettled(index, collection({ model: 'another-model' }), source)).toEqual({
          rebuilt: true,
          reason: 'model_changed',
        });
        await reopen();
        const wider = new InMemoryIndexSource();
        wider.put(makeEntries(40, { dimensions: DIMENSIONS + 8 }));
        const result = await index.open(collection({ model: 'another-model', dimensions: DIMENSIONS + 8 }), wider);
        expect(result).toEqual({ rebuilt: true, reason: 'model_changed' });
        expect(await index.count(DATASTORE)).toBe(40);
        const vector = new Float32Array(DIMENSIONS + 8).fill(0.5);
        expect(await index.query(DATASTORE, { vector, topK: 3 })).toHaveLength(3);
      });

      for (const how of ['delete', 'truncate'] as const) {
        it.skipIf(harness.corrupt === undefined)(`rebuilds when the persisted data is damaged (${how})`, async () => {
          await index.open(collection(), source);
          const entries = makeEntries(150);
          await put(entries);
          await index.close();
          await harness.corrupt?.(DATASTORE, how);
          index = await (harness.reopen as () => Promise<VectorIndex>)();
          const result = await index.open(collection(), source);
          expect(result.rebuilt).toBe(true);
          expect(how === 'truncate' ? ['corrupt'] : ['missing', 'corrupt']).toContain(result.reason);
          expect(await index.count(DATASTORE)).toBe(150);
          expect((await index.query(DATASTORE, { vector: (entries[9] as IndexEntry).vector, topK: 1 }))[0]?.id).toBe(entries[9]?.id);
        });
      }

      it('forgets a dropped collection across instances', async () => {
        await index.open(collection(), source);
        await put(makeEntries(30));
        await index.drop(DATASTORE);
        await reopen();
        expect(await openSettled(index, collection(), source)).toEqual({ rebuilt: true, reason: 'missing' });
      });
    });
  });
}
