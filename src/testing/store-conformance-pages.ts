/**
 * Pages of datasources and chunks (`DatasourceStore.pageDatasources`, `ChunkStore.pageChunks`, both
 * optional) part of the Store conformance suite: the order of the full lists, totals over every
 * page, the filters, and nothing of another datastore or datasource.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { DatasourceRecord, DatastoreRecord } from '../ports/records.js';
import type { RetrievalStore } from '../ports/store.js';
import { isoAt, makeChunk, makeDatasource, makeDatastore } from './fixtures.js';
import type { StoreSuiteContext } from './store-harness.js';

const NAMES = ['Alpha report', 'beta notes', 'GAMMA REPORT', 'delta', 'Report of epsilon', 'zeta', 'Zürich report', 'eta'];

export function describePageConformance(context: StoreSuiteContext<RetrievalStore>): void {
  const store = () => context.store();

  describe('pages of datasources', () => {
    let datastore: DatastoreRecord;
    let other: DatastoreRecord;
    let sources: DatasourceRecord[];
    let site: DatasourceRecord;

    beforeEach(async () => {
      datastore = makeDatastore({ name: 'Paged', ownerId: 'alice' });
      other = makeDatastore({ name: 'Elsewhere', ownerId: 'bob' });
      await store().createDatastore(datastore);
      await store().createDatastore(other);
      site = makeDatasource(datastore, { id: 'src-site', name: 'Site report', type: 'web_site', createdAt: isoAt(1) });
      await store().createDatasource(site);
      sources = [site];
      // Several share a creation time: the order among them is the insertion order, on every page.
      for (const [index, name] of NAMES.entries()) {
        const source = makeDatasource(datastore, {
          id: `src-page-${index}`,
          name,
          createdAt: isoAt(2 + Math.floor(index / 3)),
          groupId: index % 2 === 0 ? site.id : null,
        });
        await store().createDatasource(source);
        sources.push(source);
      }
      await store().createDatasource(makeDatasource(other, { id: 'src-bob-report', name: 'Bob report', createdAt: isoAt(2) }));
    });

    it('pages through listDatasources in its order, with the total on every page', async (test) => {
      const page = store().pageDatasources?.bind(store());
      if (!page) {
        test.skip();
        return;
      }
      const listed = (await store().listDatasources(datastore.id)).map((source) => source.id);
      expect(listed).toEqual(sources.map((source) => source.id));
      const seen: string[] = [];
      for (let offset = 0; offset < listed.length + 3; offset += 3) {
        const result = await page(datastore.id, { offset, limit: 3 });
        expect(result.total).toBe(listed.length);
        seen.push(...result.items.map((source) => source.id));
      }
      expect(seen).toEqual(listed);
      const whole = await page(datastore.id, { offset: 0, limit: 100 });
      expect(whole.items).toEqual(await store().listDatasources(datastore.id));
      expect(await page(datastore.id, { offset: 100, limit: 10 })).toEqual({ items: [], total: listed.length });
    });

    it('filters by name (any case), by group and at top level, together', async (test) => {
      const page = store().pageDatasources?.bind(store());
      if (!page) {
        test.skip();
        return;
      }
      const reports = await page(datastore.id, { offset: 0, limit: 100, nameContains: 'rEpOrT' });
      expect(reports.items.map((source) => source.name)).toEqual([
        'Site report',
        'Alpha report',
        'GAMMA REPORT',
        'Report of epsilon',
        'Zürich report',
      ]);
      expect(reports.total).toBe(5);
      const second = await page(datastore.id, { offset: 1, limit: 2, nameContains: 'report' });
      expect(second.items.map((source) => source.name)).toEqual(['Alpha report', 'GAMMA REPORT']);
      expect(second.total).toBe(5);
      expect((await page(datastore.id, { offset: 0, limit: 100, nameContains: 'ürich' })).items.map((source) => source.id)).toEqual([
        'src-page-6',
      ]);

      const members = await page(datastore.id, { offset: 0, limit: 100, groupId: site.id });
      expect(members.items.map((source) => source.id)).toEqual(['src-page-0', 'src-page-2', 'src-page-4', 'src-page-6']);
      expect(members.total).toBe(4);
      const topLevel = await page(datastore.id, { offset: 0, limit: 2, groupId: null });
      expect(topLevel.items.map((source) => source.id)).toEqual(['src-site', 'src-page-1']);
      expect(topLevel.total).toBe(5);
      const both = await page(datastore.id, { offset: 0, limit: 100, groupId: site.id, nameContains: 'REPORT' });
      expect(both.items.map((source) => source.id)).toEqual(['src-page-0', 'src-page-2', 'src-page-4', 'src-page-6']);
      const shouting = await page(datastore.id, { offset: 0, limit: 100, groupId: null, nameContains: 'REPORT' });
      expect(shouting.items.map((source) => source.id)).toEqual(['src-site']);
      expect(await page(datastore.id, { offset: 0, limit: 100, nameContains: 'no such name' })).toEqual({ items: [], total: 0 });
    });

    it("never answers another datastore's datasources, and nothing for an unknown one", async (test) => {
      const page = store().pageDatasources?.bind(store());
      if (!page) {
        test.skip();
        return;
      }
      const alice = await page(datastore.id, { offset: 0, limit: 100, nameContains: 'bob' });
      expect(alice).toEqual({ items: [], total: 0 });
      const bob = await page(other.id, { offset: 0, limit: 100 });
      expect(bob.items.map((source) => source.id)).toEqual(['src-bob-report']);
      expect(bob.total).toBe(1);
      expect(await page('missing', { offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
    });
  });

  describe('pages of chunks', () => {
    let datastore: DatastoreRecord;
    let source: DatasourceRecord;
    let sibling: DatasourceRecord;
    const texts = Array.from({ length: 23 }, (_, i) =>
      i % 5 === 0 ? `Chunk ${i} mentions a Zebra crossing.` : i === 7 ? `Chunk ${i} shouts ZEBRA.` : `Chunk ${i} is about harbours.`,
    );

    beforeEach(async () => {
      datastore = makeDatastore({ name: 'Chunk pages' });
      await store().createDatastore(datastore);
      source = makeDatasource(datastore, { name: 'long.md' });
      sibling = makeDatasource(datastore, { name: 'other zebra.md' });
      await store().createDatasource(source);
      await store().createDatasource(sibling);
      // Written out of order: pages follow `position`, not insertion.
      const chunks = texts.map((text, position) => makeChunk(source, position, text));
      await store().replaceChunks(source.id, [...chunks.slice(12), ...chunks.slice(0, 12)]);
      await store().replaceChunks(sibling.id, [makeChunk(sibling, 0, 'A zebra in another document.')]);
    });

    it('pages through listChunks in position order, with the total on every page', async (test) => {
      const page = store().pageChunks?.bind(store());
      if (!page) {
        test.skip();
        return;
      }
      const listed = await store().listChunks(source.id);
      const seen: string[] = [];
      for (let offset = 0; offset < texts.length; offset += 5) {
        const result = await page(source.id, { offset, limit: 5 });
        expect(result.total).toBe(texts.length);
        for (const chunk of result.items) {
          const full = listed.find((candidate) => candidate.id === chunk.id);
          // Everything but the vector, which a page may leave empty.
          expect({ ...chunk, vector: null }).toEqual({ ...full, vector: null });
          expect(chunk.vector.length === 0 || chunk.vector.length === full?.vector.length).toBe(true);
        }
        seen.push(...result.items.map((chunk) => chunk.text));
      }
      expect(seen).toEqual(texts);
      expect(await page(source.id, { offset: 40, limit: 5 })).toEqual({ items: [], total: texts.length });
    });

    it('filters by text (any case), pages the matches, and never reads another datasource', async (test) => {
      const page = store().pageChunks?.bind(store());
      if (!page) {
        test.skip();
        return;
      }
      const zebras = texts.filter((text) => text.toLowerCase().includes('zebra'));
      const all = await page(source.id, { offset: 0, limit: 100, textContains: 'zEbRa' });
      expect(all.items.map((chunk) => chunk.text)).toEqual(zebras);
      expect(all.total).toBe(zebras.length);
      const second = await page(source.id, { offset: 2, limit: 2, textContains: 'zebra' });
      expect(second.items.map((chunk) => chunk.text)).toEqual(zebras.slice(2, 4));
      expect(second.total).toBe(zebras.length);
      expect((await page(sibling.id, { offset: 0, limit: 10, textContains: 'zebra' })).total).toBe(1);
      expect(await page(source.id, { offset: 0, limit: 10, textContains: 'another document' })).toEqual({ items: [], total: 0 });
      expect(await page('missing', { offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
    });

    it('follows a replace: the new set, its new total', async (test) => {
      const page = store().pageChunks?.bind(store());
      if (!page) {
        test.skip();
        return;
      }
      await store().replaceChunks(source.id, [makeChunk(source, 0, 'Only one zebra left.')]);
      const after = await page(source.id, { offset: 0, limit: 10 });
      expect(after.items.map((chunk) => chunk.text)).toEqual(['Only one zebra left.']);
      expect(after.total).toBe(1);
    });
  });
}
