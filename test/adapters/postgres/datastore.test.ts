/**
 * The core running on the Postgres adapter (PGlite + pgvector over the wire): upserts, queries in
 * every mode with filters, updates, deletes, a second instance on the same database, a reindex to
 * another vector length, and a datastore delete. Vector results are compared with the in-memory
 * exact reference fed the same documents.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { localEmbeddings } from '../../../adapters/local/index.js';
import { exactIndex, memoryStores } from '../../../adapters/memory/index.js';
import { postgres, postgresIndex } from '../../../adapters/postgres/index.js';
import { hnswIndexPrefix } from '../../../adapters/postgres/vector-search.js';
import { createRagdesk, type DocumentFragment, type DocumentInput, type Ragdesk } from '../../../src/index.js';
import type { Embeddings } from '../../../src/ports/embeddings.js';
import { samplePassages } from '../../../src/testing/sample-texts.js';
import { freshSchema, startPgliteServer, type PgliteServer } from '../../helpers/pglite-server.js';

const TENANTS = ['tenant-a', 'tenant-b', 'tenant-c'];
const DOCS: DocumentInput[] = [
  ...samplePassages(36, 5).map((text, i) => ({ name: `doc-${i}`, text, custom_id: TENANTS[i % 3] as string })),
  { name: 'planted', text: 'The quokka ledger records every zymurgy session of the harbor crew.', custom_id: 'tenant-a' },
];
const QUERIES = ['telescope nebula orbit', 'dough oven recipe', 'harbor anchor tide', 'compost seedling soil', 'quokka zymurgy'];

let pglite: PgliteServer;
const opened: Ragdesk[] = [];
const schemas: string[] = [];

beforeAll(async () => {
  pglite = await startPgliteServer();
});
afterEach(async () => {
  for (const ragdesk of opened.splice(0)) await ragdesk.close();
  for (const schema of schemas.splice(0)) await pglite.pool.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
});
afterAll(async () => {
  await pglite?.close();
});

const embeddings = (dimensions = 128): Embeddings => localEmbeddings({ dimensions });

async function openPostgres(schema: string, embedder: Embeddings = embeddings()): Promise<Ragdesk> {
  const { retrieval, accounts, index } = await postgres({ pool: pglite.pool, schema });
  const ragdesk = createRagdesk({ retrieval, accounts, index, embeddings: embedder });
  opened.push(ragdesk);
  return ragdesk;
}

function openReference(): Ragdesk {
  const ragdesk = createRagdesk({ ...memoryStores(), index: exactIndex(), embeddings: embeddings() });
  opened.push(ragdesk);
  return ragdesk;
}

/** Fragments without ids (the two setups mint different ids): document name, text and score. */
const comparable = (fragments: DocumentFragment[]) =>
  fragments.map((fragment) => ({ name: fragment.datasource_name, text: fragment.text, score: fragment.score }));

function expectSameHits(actual: DocumentFragment[], expected: DocumentFragment[]): void {
  const a = comparable(actual);
  const e = comparable(expected);
  expect(a.map((hit) => hit.name)).toEqual(e.map((hit) => hit.name));
  a.forEach((hit, i) => expect(hit.score).toBeCloseTo(e[i]!.score, 4));
}

async function hnswIndexes(schema: string, datastoreId: string): Promise<string[]> {
  const { rows } = await pglite.pool.query<{ indexname: string }>(
    'SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND starts_with(indexname, $2) ORDER BY indexname',
    [schema, hnswIndexPrefix(datastoreId)],
  );
  return rows.map((row) => row.indexname);
}

describe('the core on Postgres + pgvector', () => {
  it('answers vector queries like the exact reference, with filters, and finds rare words lexically', async () => {
    const schema = freshSchema('core');
    schemas.push(schema);
    const ragdesk = await openPostgres(schema);
    const reference = openReference();
    const datastore = await ragdesk.datastores.create({ name: 'library' });
    const referenceStore = await reference.datastores.create({ name: 'library' });
    const { ids } = await datastore.upsert(DOCS);
    const { ids: referenceIds } = await referenceStore.upsert(DOCS);
    // Same documents at the same positions: translate datasource filters between the two setups.
    const pick = [ids[1]!, ids[4]!, ids[7]!];
    const referencePick = [referenceIds[1]!, referenceIds[4]!, referenceIds[7]!];

    for (const query of QUERIES) {
      expectSameHits(
        await datastore.query({ query, topK: 8, mode: 'vector' }),
        await referenceStore.query({ query, topK: 8, mode: 'vector' }),
      );
      const byTenant = await datastore.query({ query, topK: 8, mode: 'vector', filters: { custom_ids: ['tenant-b'] } });
      expect(byTenant).toHaveLength(8);
      expect(byTenant.every((hit) => hit.custom_id === 'tenant-b')).toBe(true);
      expectSameHits(byTenant, await referenceStore.query({ query, topK: 8, mode: 'vector', filters: { custom_ids: ['tenant-b'] } }));
      // A selective filter still returns every match (3 documents of one chunk each).
      const bySource = await datastore.query({ query, topK: 8, mode: 'vector', filters: { datasource_ids: pick } });
      expect(bySource.map((hit) => hit.datasource_id).sort()).toEqual([...pick].sort());
      expectSameHits(bySource, await referenceStore.query({ query, topK: 8, mode: 'vector', filters: { datasource_ids: referencePick } }));
    }

    const lexical = await datastore.query({ query: 'zymurgy', topK: 5, mode: 'lexical' });
    expect(lexical.map((hit) => hit.datasource_name)).toEqual(['planted']);
    const hybrid = await datastore.query({ query: 'the quokka ledger of zymurgy', topK: 5 });
    expect(hybrid[0]?.datasource_name).toBe('planted');
    expect(await datastore.query({ query: 'zymurgy', topK: 5, mode: 'lexical', filters: { custom_ids: ['tenant-b'] } })).toEqual([]);
  });

  it('follows updates and deletes at once, and a second instance sees the same data without rebuilding', async () => {
    const schema = freshSchema('core');
    schemas.push(schema);
    const first = await openPostgres(schema);
    const datastore = await first.datastores.create({ name: 'notes' });
    const { ids } = await datastore.upsert(DOCS.slice(0, 12));
    const before = await datastore.query({ query: 'harbor anchor tide', topK: 5, mode: 'vector' });

    // Another process on the same database: its index opens without building anything.
    const second = await openPostgres(schema);
    const seen = await second.datastores.get(datastore.id);
    expect(comparable(await seen.query({ query: 'harbor anchor tide', topK: 5, mode: 'vector' }))).toEqual(comparable(before));
    const index = await postgresIndex({ pool: pglite.pool, schema });
    const reopened = await index.open(
      { datastoreId: datastore.id, dimensions: 128, model: embeddings().model },
      { sequence: async () => 0, entries: async function* () {} },
    );
    expect(reopened).toEqual({ rebuilt: false });
    await index.close();

    // Writes through the second instance are visible to the first straight away (no stale index).
    await seen.update({ id: ids[0]!, text: 'The platypus almanac lists every observatory of the southern sky.' });
    const found = await datastore.query({ query: 'platypus almanac', topK: 3, mode: 'vector' });
    expect(found[0]?.datasource_id).toBe(ids[0]);
    expect(found[0]?.text).toContain('platypus');
    await second.datasources.delete(ids[0]!);
    const after = await datastore.query({ query: 'platypus almanac', topK: 20, mode: 'vector' });
    expect(after.some((hit) => hit.datasource_id === ids[0])).toBe(false);
    expect(await datastore.query({ query: 'platypus', topK: 5, mode: 'lexical' })).toEqual([]);
  });

  it('answers datastore queries over a read-only connection (as on a read replica): no write reaches it', async () => {
    const schema = freshSchema('core');
    schemas.push(schema);
    const primary = await openPostgres(schema);
    const datastore = await primary.datastores.create({ name: 'replicated' });
    await datastore.upsert(DOCS.slice(0, 12));
    const expected = await datastore.query({ query: 'harbor anchor tide', topK: 5 });

    // A replica refuses writes, DDL and advisory locks; this pool refuses them too, and never
    // hands out a connection for a transaction.
    const statements: string[] = [];
    const WRITES = /\b(INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|TRUNCATE|BEGIN|pg_advisory\w*)\b/i;
    const readOnly = {
      query: async (text: string, values?: unknown[]) => {
        statements.push(text);
        if (WRITES.test(text)) throw new Error(`a replica would refuse: ${text.slice(0, 80)}`);
        return pglite.pool.query(text, values);
      },
      connect: async () => {
        throw new Error('a read-only session opens no transaction');
      },
      on: () => undefined,
    } as unknown as pg.Pool;
    // What datastore.query does, on adapters opened over that pool. (A whole ragdesk instance would
    // also start its job runner, which writes: run queries-only instances without one.)
    const { retrieval: store, accounts, index } = await postgres({ pool: readOnly, schema });
    await accounts.close();
    const record = (await store.getDatastore(datastore.id))!;
    expect(
      await index.open(
        { datastoreId: record.id, dimensions: record.embeddingDimensions, model: record.embeddingModel },
        { sequence: () => store.chunkSequence(record.id), entries: async function* () {} },
      ),
    ).toEqual({ rebuilt: false });
    const query = (await embeddings().embed(['harbor anchor tide'], { purpose: 'query' })).vectors[0]!;
    const nearest = await index.query(record.id, { vector: query, topK: 5, filter: { customIds: ['tenant-a', 'tenant-b'] } });
    expect(nearest).toHaveLength(5);
    const chunks = await store.getChunks(nearest.map((hit) => hit.id));
    expect(chunks.map((chunk) => chunk.id)).toEqual(nearest.map((hit) => hit.id));
    expect((await store.getDatasources(chunks.map((chunk) => chunk.datasourceId))).length).toBe(5);
    const lexical = await store.searchText({ datastoreId: record.id, query: 'harbor anchor tide', topK: 5 });
    expect(lexical.length).toBeGreaterThan(0);
    const vectorIds = (
      await datastore.query({ query: 'harbor anchor tide', topK: 5, mode: 'vector', filters: { custom_ids: ['tenant-a', 'tenant-b'] } })
    ).map((hit) => hit.chunk_id);
    expect(nearest.map((hit) => hit.id)).toEqual(vectorIds);
    expect(expected.length).toBeGreaterThan(0);
    expect(statements.length).toBeGreaterThan(5);
    await index.close();
    await store.close();
  });

  it('reindexes to another vector length (a new HNSW index replaces the old) and drops it with the datastore', async () => {
    const schema = freshSchema('core');
    schemas.push(schema);
    const narrow = await openPostgres(schema, embeddings(64));
    const created = await narrow.datastores.create({ name: 'reindexed' });
    await created.upsert(DOCS.slice(0, 10));
    expect(await hnswIndexes(schema, created.id)).toEqual([`${hnswIndexPrefix(created.id)}64`]);
    await narrow.close();

    const wide = await openPostgres(schema, embeddings(96));
    const datastore = await wide.datastores.get(created.id);
    await expect(datastore.query({ query: 'telescope', topK: 3 })).rejects.toMatchObject({ code: 'embedding_mismatch' });
    expect(await datastore.reindex()).toEqual({ chunks: 10 });
    expect(await hnswIndexes(schema, created.id)).toEqual([`${hnswIndexPrefix(created.id)}96`]);
    const hits = await datastore.query({ query: DOCS[3]!.text, topK: 3, mode: 'vector' });
    expect(hits[0]?.datasource_name).toBe('doc-3');
    expect(hits[0]?.score).toBeCloseTo(1, 3);

    await wide.datastores.delete(created.id);
    expect(await hnswIndexes(schema, created.id)).toEqual([]);
    const { rows } = await pglite.pool.query(`SELECT count(*)::int AS n FROM ${pg.escapeIdentifier(schema)}.chunks`);
    expect(rows[0]).toEqual({ n: 0 });
  });
});
