/**
 * Documents upserted before ids were per owner were stored under their bare id (`doc-1`). Per-owner
 * ids need no schema change, so what must hold is that such data, written to a real SQLite file
 * and to Postgres (PGlite over the wire) as the earlier code wrote it, keeps answering under its
 * id once opened by the current code, for its owner only: Get, filters, fragments, upsert of the
 * same id (which updates it in place), Delete; and another owner's `doc-1` is a new document.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localEmbeddings } from '../../adapters/local/index.js';
import { exactIndex } from '../../adapters/memory/index.js';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { postgresStore } from '../../adapters/postgres/index.js';
import { sqliteStore, sqliteStores } from '../../adapters/sqlite/index.js';
import { createRagdesk, RagdeskError, type Ragdesk } from '../../src/index.js';
import type { Store } from '../../src/ports/store.js';
import { makeChunk, makeDatasource, makeDatastore } from '../../src/testing/fixtures.js';
import { freshSchema, startPgliteServer, type PgliteServer } from '../helpers/pglite-server.js';
import { tempDir } from '../helpers/setups.js';

const LEGACY_TEXT = 'ALICE LEGACY: the lighthouse ledger lists every storm since the old keeper.';

/** Alice's datastore with document `doc-1` under its bare id, chunk and vector included. */
async function writeLegacy(store: Store): Promise<void> {
  const embeddings = localEmbeddings();
  const datastore = makeDatastore({
    id: 'ds-alice',
    name: 'Alice',
    ownerId: 'alice',
    embeddingModel: embeddings.model,
    embeddingDimensions: embeddings.dimensions,
  });
  await store.createDatastore(datastore);
  await store.createDatastore({ ...datastore, id: 'ds-alice-2', name: 'Alice 2' });
  await store.createDatastore({ ...datastore, id: 'ds-bob', name: 'Bob', ownerId: 'bob' });
  const legacy = makeDatasource(datastore, { id: 'doc-1', name: 'alice ledger', metadata: {} });
  await store.createDatasource(legacy);
  const [vector] = (await embeddings.embed([LEGACY_TEXT], { purpose: 'document' })).vectors;
  await store.replaceChunks(legacy.id, [makeChunk(legacy, 0, LEGACY_TEXT, { vector: vector!, metadata: {} })]);
  await store.close();
}

async function expectNotFound(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(RagdeskError.isInstance(error) && error.code).toBe('not_found');
}

async function checkLegacy(ragdesk: Ragdesk): Promise<void> {
  const alice = { ownerId: 'alice' };
  const bob = { ownerId: 'bob' };
  const found = await ragdesk.datasources.get('doc-1', alice);
  expect([found.id, found.datastoreId, found.name]).toEqual(['doc-1', 'ds-alice', 'alice ledger']);
  await expectNotFound(ragdesk.datasources.get('doc-1', bob));

  const alices = await ragdesk.datastores.get('ds-alice');
  const filtered = await alices.query({ query: 'ledger storm', topK: 5, filters: { datasource_ids: ['doc-1'] } });
  expect(filtered.map((fragment) => [fragment.datasource_id, fragment.text])).toEqual([['doc-1', LEGACY_TEXT]]);

  // Bob's doc-1 is his own; Alice's same id elsewhere among her datastores is still hers (a conflict).
  const bobs = await ragdesk.datastores.get('ds-bob');
  expect(await bobs.upsert([{ id: 'doc-1', text: 'Bob keeps a ledger of the tides.' }])).toEqual({ ids: ['doc-1'] });
  expect((await ragdesk.datasources.get('doc-1', bob)).datastoreId).toBe('ds-bob');
  await expect((await ragdesk.datastores.get('ds-alice-2')).upsert([{ id: 'doc-1', text: 'x' }])).rejects.toMatchObject({
    code: 'conflict',
  });

  // Alice's upsert of doc-1 updates the document stored under the bare id, in place.
  expect(await alices.upsert([{ id: 'doc-1', text: 'Alice rewrote the lighthouse ledger.' }])).toEqual({ ids: ['doc-1'] });
  expect((await ragdesk.datasources.list('ds-alice')).map((source) => source.id)).toEqual(['doc-1']);
  const rewritten = await alices.query({ query: 'lighthouse ledger', topK: 5 });
  expect(rewritten.map((fragment) => [fragment.datasource_id, fragment.text])).toEqual([['doc-1', 'Alice rewrote the lighthouse ledger.']]);

  await expectNotFound(ragdesk.datasources.delete('doc-1', { ownerId: 'carol' }));
  expect((await ragdesk.datasources.delete('doc-1', alice)).datastoreId).toBe('ds-alice');
  await expectNotFound(ragdesk.datasources.get('doc-1', alice));
  expect((await ragdesk.datasources.get('doc-1', bob)).datastoreId).toBe('ds-bob');
}

describe('documents stored under bare ids', () => {
  let pglite: PgliteServer;
  let temp: ReturnType<typeof tempDir>;
  beforeAll(async () => {
    pglite = await startPgliteServer();
    temp = tempDir('ragdesk-legacy-ids-');
  });
  afterAll(async () => {
    await pglite?.close();
    temp?.remove();
  });

  it('keep answering under their id, for their owner only, in a SQLite file', async () => {
    const path = join(temp.dir, 'legacy.db');
    await writeLegacy(sqliteStore({ path }));
    const ragdesk = createRagdesk({
      ...sqliteStores({ path }),
      index: hnswIndex({ dir: join(temp.dir, 'indexes') }),
      embeddings: localEmbeddings(),
    });
    try {
      await checkLegacy(ragdesk);
    } finally {
      await ragdesk.close();
    }
  });

  it('keep answering under their id, for their owner only, on Postgres', async () => {
    const schema = freshSchema('legacy_ids');
    await writeLegacy(await postgresStore({ pool: pglite.pool, schema }));
    const ragdesk = createRagdesk({
      store: await postgresStore({ pool: pglite.pool, schema }),
      index: exactIndex(),
      embeddings: localEmbeddings(),
    });
    try {
      await checkLegacy(ragdesk);
    } finally {
      await ragdesk.close();
    }
  });
});
