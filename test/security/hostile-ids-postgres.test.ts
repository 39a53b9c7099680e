/**
 * The hostile-ids suite (see hostile-ids-suite.ts) on the Postgres adapter: PGlite with real pgvector,
 * served over the Postgres wire protocol, so values travel as bound parameters of real SQL. A file
 * of its own so it runs beside the other security files instead of after them.
 */
import pg from 'pg';
import { afterAll } from 'vitest';
import { localAnswerer, localEmbeddings } from '../../adapters/local/index.js';
import { postgres } from '../../adapters/postgres/index.js';
import { createRagdesk } from '../../src/index.js';
import { freshSchema, startPgliteServer, type PgliteServer } from '../helpers/pglite-server.js';
import { hostileIdSuite } from './hostile-ids-suite.js';

let pglite: PgliteServer | undefined;

afterAll(async () => {
  await pglite?.close();
});

hostileIdSuite('postgres (pglite) + pgvector', async () => {
  pglite ??= await startPgliteServer();
  const schema = freshSchema('hostile');
  const { retrieval, accounts, index } = await postgres({ pool: pglite.pool, schema });
  const ragdesk = createRagdesk({ retrieval, accounts, index, embeddings: localEmbeddings({ dimensions: 64 }), chat: localAnswerer() });
  return {
    ragdesk,
    close: async () => {
      await ragdesk.close();
      await pglite?.pool.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
    },
  };
});
