/**
 * Hostile ids and queries (see hostile-ids-suite.ts) on the embedded SQLite + HNSW setup and the
 * in-memory reference; hostile-ids-postgres.test.ts runs the same suite on Postgres.
 */
import { join } from 'node:path';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { localAnswerer, localEmbeddings } from '../../adapters/local/index.js';
import { exactIndex, memoryStores } from '../../adapters/memory/index.js';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import { createRagdesk } from '../../src/index.js';
import { tempDir } from '../helpers/setups.js';
import { hostileIdSuite } from './hostile-ids-suite.js';

hostileIdSuite('sqlite + hnsw', async () => {
  const temp = tempDir('ragdesk-ids-');
  const ragdesk = createRagdesk({
    ...sqliteStores({ path: join(temp.dir, 'ragdesk.db') }),
    index: hnswIndex({ dir: join(temp.dir, 'indexes') }),
    embeddings: localEmbeddings(),
    chat: localAnswerer(),
  });
  return {
    ragdesk,
    close: async () => {
      await ragdesk.close();
      temp.remove();
    },
  };
});

hostileIdSuite('memory + exact', async () => {
  const ragdesk = createRagdesk({ ...memoryStores(), index: exactIndex(), embeddings: localEmbeddings(), chat: localAnswerer() });
  return { ragdesk, close: () => ragdesk.close() };
});
