import { afterEach, describe, expect, it } from 'vitest';
import { localEmbeddings } from '../../adapters/local/index.js';
import { exactIndex, memoryStore } from '../../adapters/memory/index.js';
import { newDatasource } from '../../src/datasources/new-datasource.js';
import { createRagdesk, type Ragdesk, type Store } from '../../src/index.js';

const opened: Ragdesk[] = [];
afterEach(async () => {
  while (opened.length) await opened.pop()!.close();
});

function open(): { ragdesk: Ragdesk; store: Store } {
  const store = memoryStore();
  const ragdesk = createRagdesk({ store, index: exactIndex(), embeddings: localEmbeddings() });
  opened.push(ragdesk);
  return { ragdesk, store };
}

describe('ragdesk.datasources.page and datastore.stats', () => {
  it('pages top-level datasources or one site’s pages, filtered by name; totals count a site once through its pages', async () => {
    const { ragdesk, store } = open();
    const datastore = await ragdesk.datastores.create({ name: 'sites' });
    const at = (second: number) => new Date(Date.UTC(2026, 10, 28, 12, 0, second)).toISOString();
    const site = { ...newDatasource({ datastoreId: datastore.id, type: 'web_site', name: 'Docs site' }, at(0)), nbChunks: 5, nbTokens: 50 };
    await store.createDatasource(site);
    for (let index = 0; index < 3; index++) {
      await store.createDatasource({
        ...newDatasource({ datastoreId: datastore.id, type: 'web_page', name: `Docs page ${index}`, groupId: site.id }, at(1 + index)),
        nbChunks: index + 1,
        nbTokens: 10 * (index + 1),
        textSize: 100,
      });
    }
    await store.createDatasource({
      ...newDatasource(
        { datastoreId: datastore.id, type: 'file', name: 'Guide.pdf', config: { mime_type: 'application/pdf', file_size: 2048 } },
        at(9),
      ),
      nbChunks: 4,
      nbTokens: 40,
      textSize: 400,
    });

    const top = await ragdesk.datasources.page(datastore.id, { groupId: 'none' });
    expect(top.datasources.map((record) => record.name)).toEqual(['Docs site', 'Guide.pdf']);
    expect(top.total).toBe(2);
    const pages = await ragdesk.datasources.page(datastore.id, { groupId: site.id, offset: 1, limit: 1 });
    expect(pages).toMatchObject({ total: 3, offset: 1, limit: 1 });
    expect(pages.datasources.map((record) => record.name)).toEqual(['Docs page 1']);
    const named = await ragdesk.datasources.page(datastore.id, { name: 'DOCS' });
    expect(named.total).toBe(4);
    expect((await ragdesk.datasources.page(datastore.id)).total).toBe(5);

    expect(await datastore.stats()).toEqual({
      datasources: 5,
      documents: 4,
      chunks: 1 + 2 + 3 + 4,
      tokens: 10 + 20 + 30 + 40,
      textChars: 700,
      fileBytes: 2048,
    });
    const usage = await ragdesk.usage.get('nobody');
    expect(usage).toMatchObject({
      datasources: { used: 0 },
      storedTokens: { used: 0, limit: null },
      agentQueries: { used: null, limit: null },
    });
  });
});
