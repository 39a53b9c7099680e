/**
 * Datasource and chunk pages come from the store when it pages (`pageDatasources`, `pageChunks`):
 * the core then never lists every row. A store without those methods (a third-party one) gets the
 * same pages, cut by the core.
 */
import { describe, expect, it } from 'vitest';
import { localEmbeddings } from '../../adapters/local/index.js';
import { exactIndex, memoryStores } from '../../adapters/memory/index.js';
import { createRagdesk, type Ragdesk } from '../../src/index.js';
import type { RetrievalStore } from '../../src/ports/store.js';

interface Counted {
  store: RetrievalStore;
  accounts: ReturnType<typeof memoryStores>['accounts'];
  calls: { listChunks: number; listDatasources: number };
}

/** The memory store with its list calls counted; `paging: false` hides its page methods. */
function counted(paging: boolean): Counted {
  const { retrieval, accounts } = memoryStores();
  const calls = { listChunks: 0, listDatasources: 0 };
  const store: RetrievalStore = {
    ...retrieval,
    listChunks: (id) => {
      calls.listChunks++;
      return retrieval.listChunks(id);
    },
    listDatasources: (id, options) => {
      calls.listDatasources++;
      return retrieval.listDatasources(id, options);
    },
  };
  if (!paging) {
    delete store.pageChunks;
    delete store.pageDatasources;
  }
  return { store, accounts, calls };
}

const LONG = Array.from({ length: 400 }, (_, i) => (i % 90 === 3 ? `Sentence ${i} about a Zebra.` : `Sentence ${i} about harbours.`)).join(
  ' ',
);

async function open(paging: boolean): Promise<{ ragdesk: Ragdesk; calls: Counted['calls']; datastoreId: string; longId: string }> {
  const { store, accounts, calls } = counted(paging);
  const ragdesk = createRagdesk({ retrieval: store, accounts, index: exactIndex(), embeddings: localEmbeddings() });
  const datastore = await ragdesk.datastores.create({ name: 'pages' });
  const names = ['Alpha report', 'beta', 'Gamma REPORT', 'delta', 'long report'];
  const ids = await datastore.upsert(names.map((name) => ({ name, text: name === 'long report' ? LONG : `The ${name} text.` })));
  return { ragdesk, calls, datastoreId: datastore.id, longId: ids.ids[4]! };
}

describe('pages from the store', () => {
  it('reads a page of chunks and of datasources without listing every row, as the core did', async () => {
    const paged = await open(true);
    const sliced = await open(false);
    try {
      const before = { ...paged.calls };
      const chunkPage = await paged.ragdesk.datasources.chunks(paged.longId, { offset: 1, limit: 2 });
      const filtered = await paged.ragdesk.datasources.chunks(paged.longId, { q: 'zebra', limit: 50 });
      const sourcePage = await paged.ragdesk.datasources.page(paged.datastoreId, { offset: 1, limit: 2, name: 'REPORT' });
      expect(paged.calls).toEqual(before);

      expect(chunkPage.total).toBeGreaterThan(3);
      expect(chunkPage.chunks).toHaveLength(2);
      expect(filtered.chunks.length).toBeGreaterThan(0);
      expect(filtered.chunks.every((chunk) => chunk.text.includes('Zebra'))).toBe(true);
      expect(sourcePage.datasources.map((source) => source.name)).toEqual(['Gamma REPORT', 'long report']);
      expect(sourcePage.total).toBe(3);

      // The same pages, cut by the core from full lists.
      const strip = <T extends { chunks: { id: string }[] }>(page: T) => ({
        ...page,
        chunks: page.chunks.map(({ id: _id, ...rest }) => rest),
      });
      expect(strip(await sliced.ragdesk.datasources.chunks(sliced.longId, { offset: 1, limit: 2 }))).toEqual(strip(chunkPage));
      expect(strip(await sliced.ragdesk.datasources.chunks(sliced.longId, { q: 'zebra', limit: 50 }))).toEqual(strip(filtered));
      const slicedSources = await sliced.ragdesk.datasources.page(sliced.datastoreId, { offset: 1, limit: 2, name: 'REPORT' });
      expect(slicedSources.datasources.map((source) => source.name)).toEqual(['Gamma REPORT', 'long report']);
      expect(slicedSources.total).toBe(3);
      expect(sliced.calls.listChunks).toBe(2);
      expect(sliced.calls.listDatasources).toBeGreaterThan(0);
    } finally {
      await paged.ragdesk.close();
      await sliced.ragdesk.close();
    }
  });

  it('an unknown datastore is still a 404 when the store pages', async () => {
    const paged = await open(true);
    try {
      await expect(paged.ragdesk.datasources.page('missing', { limit: 5 })).rejects.toMatchObject({ code: 'not_found' });
    } finally {
      await paged.ragdesk.close();
    }
  });
});
