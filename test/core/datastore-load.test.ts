import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { localEmbeddings } from '../../adapters/local/index.js';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import { createRagdesk, type Ragdesk } from '../../src/index.js';
import type { Embeddings } from '../../src/ports/embeddings.js';
import type { VectorIndex } from '../../src/ports/index.js';
import type { RetrievalStore } from '../../src/ports/store.js';
import { tempDir } from '../helpers/setups.js';

const TOPICS = ['glacier ice sheet melting', 'quantum entanglement photons', 'medieval castle siege', 'coral reef bleaching'];

describe('datastore.load()', () => {
  let temp: ReturnType<typeof tempDir>;
  let datastoreId: string;
  /** The datastores whose text search the store was asked to prepare, in order. */
  let prepared: string[];

  function open(embeddings: Embeddings = localEmbeddings({ dimensions: 64 })): { ragdesk: Ragdesk; index: VectorIndex } {
    const { retrieval: store, accounts } = sqliteStores({ path: join(temp.dir, 'ragdesk.db') });
    const recording: RetrievalStore = {
      ...store,
      prepareTextSearch: async (id) => {
        prepared.push(id);
        await store.prepareTextSearch?.(id);
      },
    };
    const index = hnswIndex({ dir: join(temp.dir, 'indexes') });
    return { ragdesk: createRagdesk({ retrieval: recording, accounts, index, embeddings }), index };
  }

  beforeEach(async () => {
    temp = tempDir();
    prepared = [];
    const { ragdesk } = open();
    const datastore = await ragdesk.datastores.create({ name: 'load' });
    datastoreId = datastore.id;
    await datastore.upsert(TOPICS.map((topic, i) => ({ text: `Document ${i} is about ${topic}.` })));
    await ragdesk.close();
    prepared = [];
  });
  afterEach(() => temp.remove());

  it('opens the vector index and prepares the text search before any query', async () => {
    const { ragdesk, index } = open();
    try {
      const datastore = await ragdesk.datastores.get(datastoreId);
      // Nothing is loaded on open: the index does not know the datastore yet.
      await expect(index.count(datastoreId)).rejects.toMatchObject({ code: 'not_found' });
      expect(prepared).toEqual([]);
      await datastore.load();
      expect(await index.count(datastoreId)).toBe(TOPICS.length);
      expect(prepared).toEqual([datastoreId]);
      const fragments = await datastore.query({ query: 'ice sheet glacier', topK: 2 });
      expect(fragments[0]?.text).toContain('glacier');
      // Loading again is cheap and harmless.
      await datastore.load();
      expect(await index.count(datastoreId)).toBe(TOPICS.length);
    } finally {
      await ragdesk.close();
    }
  });

  it('serves queries while the index still loads (OpenResult.ready), holds writes until it is done, and load() waits for it', async () => {
    let finish: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const stores = sqliteStores({ path: join(temp.dir, 'ragdesk.db') });
    const inner = hnswIndex({ dir: join(temp.dir, 'indexes') });
    // The index answers open at once and says it is still loading until the gate opens.
    const index: VectorIndex = {
      ...inner,
      open: async (collection, source) => {
        const result = await inner.open(collection, source);
        return { ...result, ready: gate.then(() => ({ rebuilt: result.rebuilt })) };
      },
    };
    const ragdesk = createRagdesk({ ...stores, index, embeddings: localEmbeddings({ dimensions: 64 }) });
    try {
      const datastore = await ragdesk.datastores.get(datastoreId);
      const fragments = await datastore.query({ query: 'coral reef bleaching', topK: 1 });
      expect(fragments[0]?.text).toContain('coral');
      let written = false;
      const writing = datastore.upsert([{ text: 'Document 9 is about volcanic islands.' }]).then(() => (written = true));
      let loaded = false;
      const loading = datastore.load().then(() => (loaded = true));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(written).toBe(false);
      expect(loaded).toBe(false);
      expect((await datastore.query({ query: 'medieval castle', topK: 1 }))[0]?.text).toContain('castle');
      finish();
      await Promise.all([writing, loading]);
      expect((await datastore.query({ query: 'volcanic islands', topK: 1 }))[0]?.text).toContain('volcanic');
    } finally {
      finish();
      await ragdesk.close();
    }
  });

  it('loads only the text search of a datastore embedded with another model, without failing', async () => {
    const { ragdesk, index } = open(localEmbeddings({ dimensions: 128 }));
    try {
      const datastore = await ragdesk.datastores.get(datastoreId);
      await datastore.load();
      expect(prepared).toEqual([datastoreId]);
      await expect(index.count(datastoreId)).rejects.toMatchObject({ code: 'not_found' });
      expect((await datastore.query({ query: 'castle siege', mode: 'lexical', topK: 1 }))[0]?.text).toContain('castle');
    } finally {
      await ragdesk.close();
    }
  });

  it('fails with not_found once the datastore is deleted, and with closed after close', async () => {
    const { ragdesk } = open();
    const datastore = await ragdesk.datastores.get(datastoreId);
    await ragdesk.datastores.delete(datastoreId);
    await expect(datastore.load()).rejects.toMatchObject({ code: 'not_found' });
    await ragdesk.close();
    await expect(datastore.load()).rejects.toMatchObject({ code: 'closed' });
  });
});
