/**
 * A hybrid query hands its vector half to the index before the bm25 half runs: with the HNSW graphs
 * on their own thread, the two halves then overlap instead of running one after the other.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { localEmbeddings } from '../../adapters/local/index.js';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import { createRagdesk, type Ragdesk } from '../../src/index.js';
import type { VectorIndex } from '../../src/ports/index.js';
import type { RetrievalStore } from '../../src/ports/store.js';
import { tempDir } from '../helpers/setups.js';

describe('hybrid query', () => {
  let temp: ReturnType<typeof tempDir> | undefined;
  let ragdesk: Ragdesk | undefined;
  afterEach(async () => {
    await ragdesk?.close();
    temp?.remove();
  });

  function logged(order: string[]): Ragdesk {
    temp = tempDir();
    const { retrieval: store, accounts } = sqliteStores({ path: `${temp.dir}/ragdesk.db` });
    const index = hnswIndex({ dir: `${temp.dir}/indexes` });
    const loggingIndex: VectorIndex = {
      ...index,
      query: (datastoreId, query) => {
        order.push('vector');
        return index.query(datastoreId, query);
      },
    };
    const loggingStore = new Proxy(store, {
      get(target, property, receiver) {
        // A hybrid query reads its lexical lists through searchTextLists, a lexical one through searchText.
        if (property === 'searchText' || property === 'searchTextLists') {
          return (request: Parameters<RetrievalStore['searchText']>[0]) => {
            order.push('text');
            return property === 'searchText' ? target.searchText(request) : target.searchTextLists!(request);
          };
        }
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    return createRagdesk({ retrieval: loggingStore, accounts, index: loggingIndex, embeddings: localEmbeddings() });
  }

  it('sends the vector search to the index before the bm25 search starts', async () => {
    const order: string[] = [];
    ragdesk = logged(order);
    const datastore = await ragdesk.datastores.create({ name: 'kb' });
    await datastore.upsert([{ text: 'Ocean tides follow the moon.' }, { text: 'Sourdough rises with wild yeast.' }]);
    for (const mode of ['hybrid', 'vector', 'lexical'] as const) {
      order.length = 0;
      const fragments = await datastore.query({ query: 'moon tides', mode });
      expect(fragments[0]?.text, mode).toContain('tides');
      expect(order, mode).toEqual(mode === 'hybrid' ? ['vector', 'text'] : mode === 'vector' ? ['vector'] : ['text']);
    }
  });
});
