/** Search (`TextSearchStore`), persistence and lifecycle (`StoreLifecycle.close`) part of the Store conformance suite. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ChunkRecord, DatasourceRecord, DatastoreRecord } from '../ports/records.js';
import type { RetrievalStore } from '../ports/store.js';
import { isoAt, makeChunk, makeChunks, makeDatasource, makeDatastore, makeJob } from './fixtures.js';
import { samplePassage, samplePassages } from './sample-texts.js';
import { expectCode, type StoreSuiteContext } from './store-harness.js';

/** Queries that break naive FTS engines: operators, quotes, syntax fragments, odd Unicode. */
const HOSTILE_QUERIES = [
  '',
  '   ',
  '"',
  '""',
  "'",
  '*',
  '-',
  '+',
  ':',
  '^',
  '(',
  ')',
  '(((',
  'NEAR(',
  'NEAR(a b',
  'NEAR/3',
  'AND',
  'OR',
  'NOT',
  'AND OR NOT',
  'a AND',
  'telescope AND',
  'NOT telescope',
  '-telescope',
  'telescope*',
  '"telescope',
  'telescope"',
  'text:telescope',
  '{text}: telescope',
  '^telescope',
  '<|endoftext|>',
  '<|im_start|>system',
  "'; DROP TABLE chunks; --",
  'telescope OR',
  '\\',
  '\u0000',
  '\ud800',
  '🔭 telescope 🔭',
  '望远镜',
  'ＴＥＬＥＳＣＯＰＥ',
  'télescope',
  'x'.repeat(5000),
  Array.from({ length: 400 }, (_, i) => `word${i}`).join(' '),
];

export function describeSearchConformance(context: StoreSuiteContext<RetrievalStore>): void {
  const store = () => context.store();

  describe('searchText', () => {
    let datastore: DatastoreRecord;
    let guide: DatasourceRecord;
    let recipes: DatasourceRecord;
    let logbook: DatasourceRecord;
    let chunks: ChunkRecord[];
    const byId = (id: string) => chunks.find((chunk) => chunk.id === id) as ChunkRecord;

    beforeEach(async () => {
      datastore = makeDatastore({ name: 'Library' });
      guide = makeDatasource(datastore, { name: 'guide', customId: 'tenant-a' });
      recipes = makeDatasource(datastore, { name: 'recipes', customId: 'tenant-b' });
      logbook = makeDatasource(datastore, { name: 'logbook', customId: 'tenant-a' });
      await store().createDatastore(datastore);
      for (const source of [guide, recipes, logbook]) await store().createDatasource(source);
      chunks = [
        ...makeChunks(guide, [...samplePassages(12, 21), 'The zymurgy appendix covers how a telescope maker brews.']),
        ...makeChunks(recipes, samplePassages(12, 22)),
        ...makeChunks(logbook, samplePassages(12, 23)),
      ];
      for (const source of [guide, recipes, logbook]) {
        await store().replaceChunks(
          source.id,
          chunks.filter((chunk) => chunk.datasourceId === source.id),
        );
      }
    });

    const search = (query: string, topK = 10, filter?: { datasourceIds?: string[]; customIds?: string[] }) =>
      store().searchText({ datastoreId: datastore.id, query, topK, ...(filter ? { filter } : {}) });

    it('ranks a chunk holding a rare term first', async () => {
      const results = await search('zymurgy telescope');
      expect(results[0]?.id).toBe(chunks.find((chunk) => chunk.text.includes('zymurgy'))?.id);
      expect(results.length).toBeGreaterThan(1); // "telescope" alone matches other chunks too
    });

    it('orders by relevance: positive scores, best first, matching chunks only', async () => {
      const results = await search('nebula observatory');
      expect(results.length).toBeGreaterThan(0);
      for (let i = 0; i < results.length; i++) {
        const result = results[i]!;
        expect(result.score).toBeGreaterThan(0);
        if (i > 0) expect(result.score).toBeLessThanOrEqual(results[i - 1]!.score);
        expect(byId(result.id).text).toMatch(/nebula|observatory/i);
      }
      expect(new Set(results.map((r) => r.id)).size).toBe(results.length);
    });

    it('scores more occurrences of a term above fewer in chunks of equal length', async () => {
      const often = makeChunk(logbook, 100, 'The comet passed, the comet turned, and the comet faded over the harbor.');
      const once = makeChunk(logbook, 101, 'The ship passed, the tide turned, and the comet faded over the harbor.');
      await store().replaceChunks(logbook.id, [...chunks.filter((c) => c.datasourceId === logbook.id), once, often]);
      expect((await search('comet')).map((r) => r.id)).toEqual([often.id, once.id]);
    });

    it('returns at most topK results, the best ones', async () => {
      const all = await search('telescope galaxy recipe harbor compost', 50);
      expect(all.length).toBeGreaterThan(5);
      const top3 = await search('telescope galaxy recipe harbor compost', 3);
      expect(top3.map((r) => r.id)).toEqual(all.slice(0, 3).map((r) => r.id));
      expect(await search('telescope', 0)).toEqual([]);
    });

    it('filters by datasource, by custom id, and by both', async () => {
      const query = 'telescope recipe harbor compost oven anchor';
      const owner = (id: string) => byId(id).datasourceId;
      const unfiltered = await search(query, 50);
      expect(new Set(unfiltered.map((r) => owner(r.id))).size).toBe(3);

      const bySource = await search(query, 50, { datasourceIds: [recipes.id] });
      expect(bySource.length).toBeGreaterThan(0);
      expect(bySource.every((r) => owner(r.id) === recipes.id)).toBe(true);
      expect(bySource.map((r) => r.id)).toEqual(unfiltered.filter((r) => owner(r.id) === recipes.id).map((r) => r.id));

      const byTenant = await search(query, 50, { customIds: ['tenant-a'] });
      expect(new Set(byTenant.map((r) => owner(r.id)))).toEqual(new Set([guide.id, logbook.id]));

      const both = await search(query, 50, { datasourceIds: [guide.id, recipes.id], customIds: ['tenant-a'] });
      expect(both.length).toBeGreaterThan(0);
      expect(both.every((r) => owner(r.id) === guide.id)).toBe(true);

      expect(await search(query, 50, { datasourceIds: [], customIds: [] })).toEqual(unfiltered);
      expect(await search(query, 50, { datasourceIds: ['unknown'] })).toEqual([]);
      expect(await search(query, 50, { datasourceIds: [recipes.id], customIds: ['tenant-a'] })).toEqual([]);
    });

    it('never returns chunks of another datastore; an unknown datastore finds nothing', async () => {
      const other = makeDatastore({ name: 'Private' });
      const secret = makeDatasource(other, { name: 'secret' });
      await store().createDatastore(other);
      await store().createDatasource(secret);
      await store().replaceChunks(secret.id, [makeChunk(secret, 0, 'The zymurgy ledger of the private telescope.')]);
      const results = await search('zymurgy telescope ledger', 50);
      expect(results.every((r) => byId(r.id) !== undefined)).toBe(true);
      expect(await store().searchText({ datastoreId: 'missing', query: 'telescope', topK: 5 })).toEqual([]);
    });

    it('accepts any query text without throwing', async () => {
      for (const query of HOSTILE_QUERIES) {
        const results = await search(query);
        expect(Array.isArray(results), query).toBe(true);
      }
      for (const query of ['NOT telescope', '-telescope', 'telescope*', '"telescope', 'text:telescope', 'ＴＥＬＥＳＣＯＰＥ']) {
        expect((await search(query)).length, query).toBeGreaterThan(0);
      }
      expect(await search('the of and')).toEqual([]);
    });

    it('prepareTextSearch (when the store has it) loads a datastore, known or not, and searches answer as before', async (test) => {
      const prepare = store().prepareTextSearch?.bind(store());
      if (!prepare) {
        test.skip();
        return;
      }
      const before = await search('zymurgy telescope', 50);
      await expect(prepare(datastore.id)).resolves.toBeUndefined();
      await expect(prepare('missing')).resolves.toBeUndefined();
      expect(await search('zymurgy telescope', 50)).toEqual(before);
      // Prepared, then written: the next search sees the write.
      const fresh = makeChunk(guide, 0, 'The quokka exhibit replaced the old telescope room.');
      await store().replaceChunks(guide.id, [fresh]);
      expect((await search('quokka'))[0]?.id).toBe(fresh.id);
      await expect(prepare(datastore.id)).resolves.toBeUndefined();
      expect((await search('zymurgy')).length).toBe(0);
    });

    it('searchTextLists (when the store has it): the words list as searchText, and a 4-gram list that finds a word by its variants', async (test) => {
      const lists = store().searchTextLists?.bind(store());
      if (!lists) {
        test.skip();
        return;
      }
      const request = (query: string, topK = 10, filter?: { datasourceIds?: string[]; customIds?: string[] }) =>
        lists({ datastoreId: datastore.id, query, topK, ...(filter ? { filter } : {}) });
      const zymurgy = chunks.find((chunk) => chunk.text.includes('zymurgy'))!;
      // "zymurgical" stems to "zymurg", "zymurgy" to "zymurgi": no word in common, four 4-grams.
      const variant = await request('zymurgical');
      expect(variant.words).toEqual([]);
      expect(variant.stemGrams.map((hit) => hit.id)).toEqual([zymurgy.id]);
      expect(variant.stemGrams[0]!.score).toBeGreaterThan(0);
      const both = await request('zymurgy telescope nebula', 20);
      expect(both.words).toEqual(await search('zymurgy telescope nebula', 20));
      expect(both.stemGrams[0]?.id).toBe(zymurgy.id);
      // The same filter on both lists; nothing for an unknown datastore, a topK of 0 or a query of stopwords.
      expect(await request('zymurgical', 10, { datasourceIds: [recipes.id] })).toEqual({ words: [], stemGrams: [] });
      expect((await request('zymurgical', 10, { customIds: ['tenant-a'] })).stemGrams.map((hit) => hit.id)).toEqual([zymurgy.id]);
      expect(await lists({ datastoreId: 'missing', query: 'zymurgical', topK: 5 })).toEqual({ words: [], stemGrams: [] });
      expect(await request('zymurgical', 0)).toEqual({ words: [], stemGrams: [] });
      expect(await request('the of and')).toEqual({ words: [], stemGrams: [] });
      // It follows writes like the words list.
      await store().replaceChunks(guide.id, [makeChunk(guide, 0, 'The quokka exhibit replaced the old telescope room.')]);
      expect((await request('zymurgical')).stemGrams).toEqual([]);
    });

    it('follows replaces and deletes', async () => {
      const fresh = makeChunk(guide, 0, 'The quokka exhibit replaced the old telescope room.');
      await store().replaceChunks(guide.id, [fresh]);
      expect((await search('zymurgy')).length).toBe(0);
      expect((await search('quokka'))[0]?.id).toBe(fresh.id);
      await store().deleteDatasource(guide.id);
      expect(await search('quokka')).toEqual([]);
    });
  });

  describe('persistence', () => {
    it.skipIf(context.harness.reopen === undefined)('keeps everything across close and reopen', async () => {
      const datastore = makeDatastore({ name: 'Durable' });
      const source = makeDatasource(datastore, { name: 'durable.md', customId: 'tenant-z', metadata: { author: 'Grace' } });
      await store().createDatastore(datastore);
      await store().createDatasource(source);
      const chunks = makeChunks(source, [...samplePassages(6, 31), 'A persistent platypus.'], { dimensions: 384 });
      const { sequence } = await store().replaceChunks(source.id, chunks, { nbChunks: chunks.length });

      const reopened = await context.reopen();
      expect(await reopened.getDatastore(datastore.id)).toEqual(datastore);
      expect(await reopened.getDatasource(source.id)).toEqual({ ...source, nbChunks: chunks.length });
      expect(await reopened.chunkSequence(datastore.id)).toBe(sequence);
      const read = await reopened.listChunks(source.id);
      expect(read.map((c) => ({ ...c, vector: Array.from(c.vector) }))).toEqual(
        chunks.map((c) => ({ ...c, vector: Array.from(c.vector) })),
      );
      expect((await reopened.searchText({ datastoreId: datastore.id, query: 'platypus', topK: 3 }))[0]?.id).toBe(chunks[6]!.id);
      const change = await reopened.replaceChunks(source.id, chunks.slice(0, 2));
      expect(change.sequence).toBeGreaterThan(sequence);
      expect(change.removedIds.length).toBe(5);
    });
  });

  describe('close', () => {
    it('is idempotent, and afterwards every method rejects with closed', async () => {
      const closing: RetrievalStore = store();
      const datastore = makeDatastore();
      const source = makeDatasource(datastore);
      await closing.createDatastore(datastore);
      await closing.close();
      await closing.close();
      const calls: Array<() => Promise<unknown>> = [
        () => closing.createDatastore(makeDatastore({ name: 'After' })),
        () => closing.getDatastore(datastore.id),
        () => closing.listDatastores(),
        () => closing.updateDatastore(datastore.id, { name: 'x' }),
        () => closing.deleteDatastore(datastore.id),
        () => closing.createDatasource(source),
        () => closing.getDatasource(source.id),
        () => closing.listDatasources(datastore.id),
        () => closing.updateDatasource(source.id, { name: 'x' }),
        () => closing.deleteDatasource(source.id),
        () => closing.replaceChunks(source.id, [makeChunk(source, 0, samplePassage('sailing', 1))]),
        () => closing.getChunks(['x']),
        () => closing.listChunks(source.id),
        () => closing.countChunks(datastore.id),
        () => closing.findVectorsByHash(datastore.id, ['x'], 8),
        () => closing.chunkSequence(datastore.id),
        () => closing.searchText({ datastoreId: datastore.id, query: 'harbor', topK: 3 }),
        () => closing.transitionDatasource(source.id, ['pending'], { status: 'running' }),
        () => closing.listStatusEvents(source.id),
        () => closing.putDatasourceFile(source.id, { bytes: new Uint8Array(1), mimeType: 'text/plain', fileName: null }),
        () => closing.getDatasourceFile(source.id),
        () => closing.createJob(makeJob(source, 1)),
        () => closing.getJob('job'),
        () => closing.listJobs({}),
        () => closing.claimJob({ owner: 'w', now: isoAt(1), leaseUntil: isoAt(2) }),
        () => closing.updateJob('job', { status: 'done' }),
        async () => {
          for await (const batch of closing.iterateChunks(datastore.id)) void batch;
        },
      ];
      for (const call of calls) await expectCode(call(), 'closed');
    });
  });
}
