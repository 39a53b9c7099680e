import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { preloadDatastores } from '../../adapters/cli/preload.js';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { localEmbeddings } from '../../adapters/local/index.js';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import { createRagdesk, RagdeskError } from '../../src/index.js';
import type { RetrievalStore } from '../../src/ports/store.js';
import type { VectorIndex } from '../../src/ports/index.js';
import { tempDir } from '../helpers/setups.js';
import { recordingIo } from './io.js';

describe('preloadDatastores (ragdesk serve at start)', () => {
  it('loads every datastore, reports one that fails, skips one deleted meanwhile, and stops at close', async () => {
    const temp = tempDir('ragdesk-preload-');
    try {
      const open = () => ({
        ...sqliteStores({ path: join(temp.dir, 'ragdesk.db') }),
        index: hnswIndex({ dir: join(temp.dir, 'indexes') }),
      });
      const embeddings = localEmbeddings({ dimensions: 64 });
      const names = ['healthy', 'broken', 'gone', 'also healthy'];
      const first = createRagdesk({ ...open(), embeddings });
      const ids: string[] = [];
      for (const name of names) {
        const datastore = await first.datastores.create({ name });
        await datastore.upsert([{ text: `A note about ${name} things.` }]);
        ids.push(datastore.id);
      }
      await first.close();

      // Restarted: one index refuses to open, one datastore is gone by the time it is loaded.
      const { retrieval, accounts, index } = open();
      const failing: VectorIndex = {
        ...index,
        open: async (collection, source) => {
          if (collection.datastoreId === ids[1]) throw new RagdeskError('internal', 'disk on fire');
          return index.open(collection, source);
        },
      };
      const forgetful: RetrievalStore = { ...retrieval, getDatastore: async (id) => (id === ids[2] ? null : retrieval.getDatastore(id)) };
      const ragdesk = createRagdesk({ retrieval: forgetful, accounts, index: failing, embeddings });
      const io = recordingIo();
      const report = await preloadDatastores(ragdesk, io);
      expect(report).toMatchObject({ loaded: 2, failed: 1 });
      const printed = io.err.join('');
      expect(printed).toContain(`could not load datastore ${ids[1]} ("broken"): disk on fire`);
      expect(printed).not.toContain(ids[2]!);
      expect(printed).toMatch(/Loaded 2 datastores for search in [0-9.]+ s/);

      await ragdesk.close();
      const after = recordingIo();
      expect(await preloadDatastores(ragdesk, after)).toMatchObject({ loaded: 0, failed: 0 });
      expect(after.err).toEqual([]);
    } finally {
      temp.remove();
    }
  });
});
