import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localEmbeddings } from '../../adapters/local/index.js';
import { exactIndex, memoryStores } from '../../adapters/memory/index.js';
import {
  createRagdesk,
  matchesMetadata,
  RagdeskError,
  type DocumentInput,
  type Metadata,
  type MetadataFilter,
  type Ragdesk,
} from '../../src/index.js';
import { makeDatasource } from '../../src/testing/fixtures.js';
import { seededRandom } from '../../src/testing/random.js';
import { countingEmbeddings, SETUPS, tempDir } from '../helpers/setups.js';

const WORDS = ['tide', 'moon', 'yeast', 'bread', 'iron', 'oxygen', 'magma', 'crust', 'light', 'glucose', 'river', 'delta'];

function documents(count: number): DocumentInput[] {
  const random = seededRandom(7);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)] as T;
  return Array.from({ length: count }, (_, index) => {
    const metadata: Metadata = { lang: pick(['en', 'fr', 'de']), year: 2015 + Math.floor(random() * 10) };
    if (random() < 0.5) metadata.draft = random() < 0.5;
    if (random() < 0.6) metadata.published = `2024-0${1 + Math.floor(random() * 9)}-1${Math.floor(random() * 9)}`;
    const text = Array.from({ length: 12 }, () => pick(WORDS)).join(' ');
    return { id: `doc-${index}`, name: `doc ${index}`, text: `${text}.`, metadata };
  });
}

const FILTERS: MetadataFilter[] = [
  { key: 'lang', eq: 'fr' },
  { key: 'lang', in: ['de', 'fr'] },
  { key: 'year', gte: 2020 },
  { key: 'year', gt: 2016, lte: 2018 },
  { key: 'published', gte: '2024-03-01', lt: '2024-07-01' },
  { key: 'draft', exists: true },
  { and: [{ key: 'lang', eq: 'en' }, { not: { key: 'draft', eq: true } }] },
  {
    or: [
      { key: 'year', lt: 2017 },
      { key: 'published', gte: '2024-09-01' },
    ],
  },
];

describe.each(SETUPS)('metadata filters on $name', (setup) => {
  let temp: ReturnType<typeof tempDir>;
  let ragdesk: Ragdesk;
  beforeEach(() => {
    temp = tempDir();
  });
  afterEach(async () => {
    await ragdesk.close();
    temp.remove();
  });

  it('returns the best topK matching chunks in every mode, as a brute-force filter of the full ranking does', async () => {
    ragdesk = setup.open(temp.dir);
    const datastore = await ragdesk.datastores.create({ name: 'kb' });
    const docs = documents(80);
    await datastore.upsert(docs);
    const metadataOf = new Map(docs.map((doc) => [doc.id!, doc.metadata!]));
    const query = 'moon tide over the river delta';
    for (const filter of FILTERS) {
      const matching = docs.filter((doc) => matchesMetadata(filter, doc.metadata!)).length;
      expect(matching, JSON.stringify(filter)).toBeGreaterThan(5);
      expect(matching, JSON.stringify(filter)).toBeLessThan(docs.length);
      for (const mode of ['vector', 'lexical'] as const) {
        const all = await datastore.query({ query, mode, topK: 1000 });
        const expected = all.filter((fragment) => matchesMetadata(filter, metadataOf.get(fragment.datasource_id)!)).slice(0, 5);
        const filtered = await datastore.query({ query, mode, topK: 5, filters: { metadata: filter } });
        expect({ filter, mode, ids: filtered.map((fragment) => fragment.chunk_id) }).toEqual({
          filter,
          mode,
          ids: expected.map((f) => f.chunk_id),
        });
      }
      const hybrid = await datastore.query({ query, topK: 5, filters: { metadata: filter } });
      expect(hybrid).toHaveLength(5);
      for (const fragment of hybrid) expect(matchesMetadata(filter, fragment.metadata)).toBe(true);
    }
    // Nothing matches: no search at all, and not "no restriction".
    expect(await datastore.query({ query, topK: 5, filters: { metadata: { key: 'lang', eq: 'xx' } } })).toEqual([]);
    // With datasource ids too, both hold.
    const both = await datastore.query({
      query,
      mode: 'lexical',
      topK: 50,
      filters: { datasource_ids: ['doc-1', 'doc-2', 'doc-3'], metadata: { key: 'year', gte: 0 } },
    });
    expect(new Set(both.map((fragment) => fragment.datasource_id))).toEqual(new Set(['doc-1', 'doc-2', 'doc-3']));
  });

  it('answers a bad filter with invalid_request naming the path', async () => {
    ragdesk = setup.open(temp.dir);
    const datastore = await ragdesk.datastores.create({ name: 'kb' });
    const bad = async (metadata: unknown) => {
      const error = await datastore.query({ query: 'moon', filters: { metadata } as never }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(RagdeskError.isInstance(error) && error.code).toBe('invalid_request');
      return ((error as RagdeskError).details as { issues: { path: string; message: string }[] }).issues;
    };
    expect(
      (
        await bad({
          and: [
            { key: 'year', eq: 1 },
            { key: 'year', gte: 'last year' },
          ],
        })
      )[0]!.path,
    ).toBe('filters.metadata.and.1.gte');
    expect((await bad({ key: 'year', between: [1, 2] }))[0]!.path).toBe('filters.metadata.between');
    expect((await bad({ key: 'year', gte: 1, lte: '2024-01-01' }))[0]).toMatchObject({
      path: 'filters.metadata.lte',
      message: expect.stringMatching(/both/),
    });
    expect((await bad({ or: [] }))[0]!.path).toBe('filters.metadata.or');
    expect((await bad({ key: 'tags', in: [['nested']] }))[0]!.path).toBe('filters.metadata.in.0');
    expect((await bad({ eq: 1 }))[0]!.path).toBe('filters.metadata.key');
    expect((await bad({ and: [{ key: 'a', eq: 1 }], or: [] }))[0]!.message).toMatch(/only property/);
    let deep: unknown = { key: 'a', eq: 1 };
    for (let level = 0; level < 12; level++) deep = { not: deep };
    expect((await bad(deep))[0]!.message).toMatch(/nest at most/);
  });

  it('changes metadata in place: filters follow at once and nothing is embedded again', async () => {
    const embeddings = countingEmbeddings(localEmbeddings());
    ragdesk = setup.open(temp.dir, embeddings);
    const datastore = await ragdesk.datastores.create({ name: 'kb' });
    await datastore.upsert(documents(20));
    const embedded = embeddings.texts.length;
    const filter: MetadataFilter = { key: 'tenant', eq: 'acme' };
    expect(await datastore.query({ query: 'moon tide', filters: { metadata: filter } })).toEqual([]);
    const updated = await ragdesk.datasources.update('doc-4', { metadata: { tenant: 'acme', lang: 'en' } });
    expect(updated.metadata).toEqual({ tenant: 'acme', lang: 'en' });
    const hits = await datastore.query({ query: 'moon tide iron yeast light river', topK: 10, filters: { metadata: filter } });
    expect(hits.map((fragment) => fragment.datasource_id)).toEqual(['doc-4']);
    expect(hits[0]!.metadata).toMatchObject({ tenant: 'acme' });
    expect(embeddings.texts.length).toBe(embedded);
    await expect(ragdesk.datasources.update('doc-4', { metadata: { nested: { no: 1 } } as never })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(ragdesk.datasources.update('missing', { name: 'x' })).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe("a site's pages", () => {
  it("take the site's metadata when it changes, each keeping its own source", async () => {
    const stores = memoryStores();
    const store = stores.retrieval;
    const ragdesk = createRagdesk({ ...stores, index: exactIndex(), embeddings: localEmbeddings() });
    try {
      const datastore = await ragdesk.datastores.create({ name: 'kb' });
      const site = makeDatasource(datastore.id, { id: 'site', name: 'site', type: 'web_site', metadata: { lang: 'en' } });
      await store.createDatasource(site);
      const page = makeDatasource(datastore.id, {
        id: 'page',
        name: 'page',
        type: 'web_page',
        groupId: 'site',
        metadata: { lang: 'en', source: 'https://example.org/a' },
      });
      await store.createDatasource(page);
      await ragdesk.datasources.update('site', { metadata: { lang: 'fr', team: 'docs' } });
      expect((await ragdesk.datasources.get('page')).metadata).toEqual({ lang: 'fr', team: 'docs', source: 'https://example.org/a' });
      expect((await ragdesk.datasources.get('site')).metadata).toEqual({ lang: 'fr', team: 'docs' });
    } finally {
      await ragdesk.close();
    }
  });
});
