import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localEmbeddings } from '../../adapters/local/index.js';
import { RagdeskError, type DocumentInput, type Ragdesk } from '../../src/index.js';
import { countingEmbeddings, SETUPS, tempDir } from '../helpers/setups.js';

const DOCS: DocumentInput[] = [
  {
    name: 'tides',
    text: 'Ocean tides are caused by the gravitational pull of the moon and the sun on the oceans.',
    metadata: { source: 'https://example.org/tides', author: 'Ada' },
  },
  {
    name: 'bread',
    text: 'Sourdough bread rises because wild yeast and lactic acid bacteria ferment the dough.',
    metadata: { source: 'bread.md' },
  },
  { name: 'photo', text: 'Photosynthesis converts light energy into chemical energy stored in glucose inside chloroplasts.' },
  { name: 'rust', text: 'Iron rusts when it reacts with oxygen and water, forming hydrated iron oxide.', custom_id: 'tenant-a' },
  {
    name: 'volcano',
    text: 'A volcano erupts when pressure from magma and dissolved gases exceeds the strength of the crust.',
    custom_id: 'tenant-b',
  },
];

async function expectCode(promise: Promise<unknown>, code: string): Promise<RagdeskError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, `expected a ${code} error`).toBeInstanceOf(RagdeskError);
  expect((error as RagdeskError).code).toBe(code);
  return error as RagdeskError;
}

describe.each(SETUPS)('Datastore on $name', (setup) => {
  let temp: ReturnType<typeof tempDir>;
  let ragdesk: Ragdesk;
  beforeEach(() => {
    temp = tempDir();
    ragdesk = setup.open(temp.dir);
  });
  afterEach(async () => {
    await ragdesk.close();
    temp.remove();
  });

  it('creates, gets, lists, renames and deletes datastores', async () => {
    const created = await ragdesk.datastores.create({ name: 'kb', description: 'first' });
    expect(created.embeddingModel).toBe(localEmbeddings().model);
    expect((await ragdesk.datastores.get(created.id)).name).toBe('kb');
    const renamed = await ragdesk.datastores.update(created.id, { name: 'kb2' });
    expect(renamed.name).toBe('kb2');
    expect(renamed.description).toBe('first');
    expect((await ragdesk.datastores.list()).map((d) => d.id)).toEqual([created.id]);
    await ragdesk.datastores.delete(created.id);
    await expectCode(ragdesk.datastores.get(created.id), 'not_found');
    expect(await ragdesk.datastores.list()).toEqual([]);
  });

  it('names a document without a name after its first words, whitespace collapsed', async () => {
    const datastore = await ragdesk.datastores.create({ name: 'names' });
    const long = `\n\n  Tidal   pools\n\tshelter anemones, crabs and small fish between the tides. ${'More text. '.repeat(20_000)}`;
    const { ids } = await datastore.upsert([{ text: long }, { text: '  Short\n note  ' }]);
    expect((await ragdesk.datasources.get(ids[0]!)).name).toBe('Tidal pools shelter anemones, crabs and small fish betwee...');
    expect((await ragdesk.datasources.get(ids[1]!)).name).toBe('Short note');
  });

  it('upserts documents and answers queries with API fragments', async () => {
    const datastore = await ragdesk.datastores.create({ name: 'science' });
    const { ids } = await datastore.upsert(DOCS);
    expect(ids).toHaveLength(DOCS.length);
    const fragments = await datastore.query({ query: 'why does the moon cause tides', topK: 2 });
    expect(fragments.length).toBeGreaterThan(0);
    const top = fragments[0]!;
    expect(top.datasource_id).toBe(ids[0]);
    expect(top.datasource_name).toBe('tides');
    expect(top.source).toBe('https://example.org/tides');
    expect(top.metadata.author).toBe('Ada');
    expect(top.text).toContain('gravitational');
    expect(typeof top.score).toBe('number');
    expect(top.chunk_id).toMatch(/^[0-9a-f]{32}$/);
    const datasource = await ragdesk.datasources.get(ids[0]!);
    expect(datasource).toMatchObject({ type: 'text', status: 'synched', nbChunks: 1 });
    expect(datasource.lastSynch).not.toBeNull();
  });

  it('finds each document by its own words in every mode', async () => {
    const datastore = await ragdesk.datastores.create({ name: 'science' });
    const { ids } = await datastore.upsert(DOCS);
    for (const mode of ['hybrid', 'vector', 'lexical'] as const) {
      const [top] = await datastore.query({ query: 'magma pressure crust', mode, topK: 1 });
      expect(top?.datasource_id, mode).toBe(ids[4]);
    }
  });

  it('surfaces a sub-word match that only the vector side finds', async () => {
    const datastore = await ragdesk.datastores.create({ name: 'science' });
    const { ids } = await datastore.upsert(DOCS);
    // "photosynthetic" and "Photosynthesis" stem differently, so bm25 cannot match them.
    const lexical = await datastore.query({ query: 'photosynthetic', mode: 'lexical', topK: 5 });
    expect(lexical.map((f) => f.datasource_id)).not.toContain(ids[2]);
    const hybrid = await datastore.query({ query: 'photosynthetic', topK: 3 });
    expect(hybrid[0]?.datasource_id).toBe(ids[2]);
  });

  it('applies filters in every mode', async () => {
    const datastore = await ragdesk.datastores.create({ name: 'science' });
    const { ids } = await datastore.upsert(DOCS);
    for (const mode of ['hybrid', 'vector', 'lexical'] as const) {
      const byTenant = await datastore.query({ query: 'iron oxygen magma crust', mode, topK: 10, filters: { custom_ids: ['tenant-b'] } });
      expect(byTenant.length, mode).toBeGreaterThan(0);
      expect(new Set(byTenant.map((f) => f.custom_id)), mode).toEqual(new Set(['tenant-b']));
      const bySource = await datastore.query({
        query: 'energy bread tides',
        mode,
        topK: 10,
        filters: { datasource_ids: [ids[1]!, ids[2]!] },
      });
      expect(bySource.length, mode).toBeGreaterThan(0);
      for (const f of bySource) expect([ids[1], ids[2]], mode).toContain(f.datasource_id);
      const both = await datastore.query({
        query: 'iron rust oxygen',
        mode,
        topK: 10,
        filters: { custom_ids: ['tenant-a'], datasource_ids: [ids[4]!] },
      });
      expect(both, mode).toEqual([]);
      const emptyLists = await datastore.query({ query: 'iron rust', mode, topK: 10, filters: { custom_ids: [], datasource_ids: [] } });
      expect(emptyLists.length, mode).toBeGreaterThan(0);
    }
  });

  it('rejects bad input with typed errors and writes nothing', async () => {
    const datastore = await ragdesk.datastores.create({ name: 'strict' });
    await expectCode(datastore.query({ query: '   ' }), 'invalid_request');
    await expectCode(datastore.query({ query: 'x', topK: 0 }), 'invalid_request');
    await expectCode(datastore.query({ query: 'x', topK: 1001 }), 'invalid_request');
    await expectCode(datastore.query({ query: 'x', topK: 2.5 }), 'invalid_request');
    const bad = [
      { text: 'fine document' },
      { text: 42 as unknown as string },
      { text: 'nested', metadata: { author: { name: 'x' } } as unknown as Record<string, string> },
    ];
    const error = await expectCode(datastore.upsert(bad), 'invalid_request');
    const paths = (error.details?.issues as { path: string }[]).map((issue) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(['1.text', '2.metadata.author']));
    await expectCode(datastore.upsert([]), 'invalid_request');
    expect(await ragdesk.datasources.list(datastore.id)).toEqual([]);
    await expectCode(ragdesk.datastores.get('missing'), 'not_found');
    await expectCode(ragdesk.datastores.create({ name: '' }), 'invalid_request');
    await expectCode(datastore.update({ id: 'missing', text: 'x' }), 'not_found');
  });

  it('reports an unknown datastore on every operation', async () => {
    const datastore = await ragdesk.datastores.create({ name: 'gone' });
    await ragdesk.datastores.delete(datastore.id);
    await expectCode(datastore.query({ query: 'anything' }), 'not_found');
    await expectCode(datastore.upsert([{ text: 'x' }]), 'not_found');
  });

  it('deletes a datasource from the store and the index', async () => {
    const datastore = await ragdesk.datastores.create({ name: 'science' });
    const { ids } = await datastore.upsert(DOCS);
    await ragdesk.datasources.delete(ids[4]!);
    for (const mode of ['vector', 'lexical'] as const) {
      const hits = await datastore.query({ query: 'volcano magma crust', mode, topK: 10 });
      expect(
        hits.map((f) => f.datasource_id),
        mode,
      ).not.toContain(ids[4]);
    }
    await expectCode(ragdesk.datasources.get(ids[4]!), 'not_found');
  });
});

describe('Datastore.update (Datastore Update)', () => {
  it('re-embeds only the chunks whose text changed', async () => {
    const temp = tempDir();
    const embeddings = countingEmbeddings(localEmbeddings());
    const ragdesk = SETUPS[0]!.open(temp.dir, embeddings);
    try {
      const datastore = await ragdesk.datastores.create({ name: 'manual' });
      const paragraphs = Array.from(
        { length: 12 },
        (_, i) =>
          `Section ${i}. ` +
          `The maintenance procedure for component ${i} requires checking the valve, the seal and the pressure gauge. `.repeat(12),
      );
      const { ids } = await datastore.upsert([{ text: paragraphs.join('\n\n'), name: 'manual' }]);
      const before = await ragdesk.datasources.get(ids[0]!);
      expect(before.nbChunks).toBeGreaterThan(3);
      expect(embeddings.texts.length).toBe(before.nbChunks);

      embeddings.texts.length = 0;
      paragraphs[5] = 'Section 5. The zeppelin hangar must be inspected for helium leaks every spring.';
      await datastore.update({ id: ids[0]!, text: paragraphs.join('\n\n'), metadata: { revision: 2 } });
      const after = await ragdesk.datasources.get(ids[0]!);
      expect(embeddings.texts.length).toBeGreaterThan(0);
      expect(embeddings.texts.length).toBeLessThan(after.nbChunks);
      expect(embeddings.texts.join(' ')).toContain('zeppelin');
      expect(after.metadata).toEqual({ revision: 2 });
      const [top] = await datastore.query({ query: 'zeppelin helium', topK: 1, mode: 'vector' });
      expect(top?.text).toContain('zeppelin');

      embeddings.texts.length = 0;
      await datastore.update({ id: ids[0]!, text: paragraphs.join('\n\n') });
      expect(embeddings.texts).toEqual([]);
    } finally {
      await ragdesk.close();
      temp.remove();
    }
  });
});
