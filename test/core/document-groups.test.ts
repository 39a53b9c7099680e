import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { localEmbeddings } from '../../adapters/local/index.js';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import { createRagdesk, type Ragdesk } from '../../src/index.js';
import type { Embeddings } from '../../src/ports/embeddings.js';
import type { RetrievalStore } from '../../src/ports/store.js';
import { tempDir } from '../helpers/setups.js';

/** The real SQLite retrieval store, with a count of the write calls that reach it. */
function countingStore(inner: RetrievalStore): { store: RetrievalStore; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const counted = new Set(['createDatasource', 'replaceChunks', 'createDocuments']);
  const store = new Proxy(inner, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof key !== 'string' || !counted.has(key) || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.set(key, (calls.get(key) ?? 0) + 1);
        return (value as (...params: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, calls };
}

describe('an upsert of many new documents', () => {
  let temp: ReturnType<typeof tempDir>;
  let ragdesk: Ragdesk;
  let calls: Map<string, number>;
  let store: RetrievalStore;
  let racing: () => Promise<void>;

  beforeEach(() => {
    temp = tempDir('ragdesk-groups-');
    const { retrieval, accounts } = sqliteStores({ path: join(temp.dir, 'ragdesk.db') });
    const counting = countingStore(retrieval);
    calls = counting.calls;
    store = counting.store;
    racing = async () => undefined;
    const local = localEmbeddings();
    const embeddings: Embeddings = {
      specificationVersion: 'v1',
      model: local.model,
      dimensions: local.dimensions,
      maxBatchSize: local.maxBatchSize,
      async embed(texts, options) {
        await racing();
        return local.embed(texts, options);
      },
    };
    ragdesk = createRagdesk({ retrieval: counting.store, accounts, index: hnswIndex({ dir: join(temp.dir, 'indexes') }), embeddings });
  });

  afterEach(async () => {
    await ragdesk.close();
    temp.remove();
  });

  it('writes them in a few store steps, each document with its usual status history', async () => {
    const datastore = await ragdesk.datastores.create({ name: 'many' });
    const documents = Array.from({ length: 150 }, (_, i) => ({ text: `Document number ${i} is about topic ${i % 7} and nothing else.` }));
    const { ids } = await datastore.upsert(documents);
    expect(calls.get('createDocuments')).toBe(3); // 64 + 64 + 22
    expect(calls.get('createDatasource') ?? 0).toBe(0);
    expect(calls.get('replaceChunks') ?? 0).toBe(0);

    const last = await ragdesk.datasources.get(ids[149] as string);
    expect(last).toMatchObject({ status: 'synched', nbChunks: 1 });
    const events = await store.listStatusEvents(ids[0] as string);
    expect(events.map((event) => [event.from, event.to])).toEqual([
      [null, 'running'],
      ['running', 'synched'],
    ]);
    const [best] = await datastore.query({ query: 'Document number 123', topK: 1, mode: 'lexical' });
    expect(best?.datasource_id).toBe(ids[123]);
    const [nearest] = await datastore.query({ query: 'Document number 77 is about topic 0 and nothing else.', topK: 1, mode: 'vector' });
    expect(nearest?.text).toContain('number 77');
  });

  it('fails on the document that causes it, with the ones before it stored, as one by one', async () => {
    const datastore = await ragdesk.datastores.create({ name: 'race' });
    const elsewhere = await ragdesk.datastores.create({ name: 'elsewhere' });
    // While the upsert embeds, another call takes one of its new ids: the grouped step fails.
    let raced = false;
    racing = async () => {
      if (raced) return;
      raced = true;
      await elsewhere.upsert([{ id: 'doc-c', text: 'Taken first, in another datastore.' }]);
    };
    const documents = ['a', 'b', 'c', 'd'].map((letter) => ({ id: `doc-${letter}`, text: `The text of document ${letter}, stored.` }));
    await expect(datastore.upsert(documents)).rejects.toMatchObject({ code: 'conflict' });
    expect(calls.get('createDocuments')).toBe(1); // the racing upsert of one document goes one by one
    expect((await ragdesk.datasources.get('doc-b'))?.status).toBe('synched');
    expect((await ragdesk.datasources.get('doc-c'))?.datastoreId).toBe(elsewhere.id);
    await expect(ragdesk.datasources.get('doc-d')).rejects.toMatchObject({ code: 'not_found' });
    const hits = await datastore.query({ query: 'text of document', topK: 5, mode: 'vector' });
    expect(hits.map((hit) => hit.datasource_id).sort()).toEqual(['doc-a', 'doc-b']);
  });
});
