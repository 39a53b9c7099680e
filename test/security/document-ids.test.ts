/**
 * Document ids are per owner, over HTTP through the real handler: upserting a document id another
 * owner holds answers exactly like a free id (no 409 to probe with), and from then on each owner's
 * `doc-1` is their own document everywhere an id is seen or given: Datasource Get and List,
 * fragments, agent sources, query filters, Datastore Update and Datasource Delete. A library-level
 * case checks the same work is done for a free id and for another owner's (the store calls made).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localEmbeddings } from '../../adapters/local/index.js';
import { exactIndex, memoryStores } from '../../adapters/memory/index.js';
import { createRagdesk } from '../../src/index.js';
import type { RetrievalStore } from '../../src/ports/store.js';
import { ApiClient } from '../http/client.js';
import { openFixture, type Fixture } from '../http/fixture.js';
import { OpenApiValidator } from '../http/openapi-validator.js';
import { startServer, type RunningServer } from '../http/servers.js';

interface DatasourceBody {
  id: string;
  datastoreId: string;
  name: string;
}
interface Fragment {
  text: string;
  datasource_id: string;
}

/** A response with one id written as `<id>`, to compare the answers for two ids. */
function shape(response: { status: number; text: string }, id: string): { status: number; body: string } {
  return { status: response.status, body: response.text.replaceAll(id, '<id>') };
}

describe('per-owner document ids (HTTP)', () => {
  let fixture: Fixture;
  let server: RunningServer;
  let api: ApiClient;
  let aliceStore: string;
  let bobStore: string;

  beforeAll(async () => {
    fixture = await openFixture({ openai: { reply: () => 'An answer.' } });
    server = await startServer('node:http', fixture.handler);
    api = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), null);
    aliceStore = (await api.post<{ id: string }>('/api/datastores', { name: 'Alice' }, { key: fixture.alice })).body.id;
    bobStore = (await api.post<{ id: string }>('/api/datastores', { name: 'Bob' }, { key: fixture.bob })).body.id;
    const upserted = await api.post<{ ids: string[] }>(
      `/api/datastores/upsert/${aliceStore}`,
      { documents: [{ id: 'doc-1', name: 'alice ledger', text: 'ALICE SECRET: the lighthouse ledger lists every storm.' }] },
      { key: fixture.alice },
    );
    expect(upserted.body).toEqual({ ids: ['doc-1'] });
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  const as = (key: () => string) => ({
    get: <T>(path: string) => api.get<T>(path, { key: key() }),
    post: <T>(path: string, body: unknown) => api.post<T>(path, body, { key: key() }),
    delete: <T>(path: string) => api.delete<T>(path, { key: key() }),
  });
  const alice = as(() => fixture.alice);
  const bob = as(() => fixture.bob);

  it("answers another owner's document id exactly like a free one, before and on upsert", async () => {
    const unknown = await bob.get('/api/datasources/doc-unused');
    const foreign = await bob.get('/api/datasources/doc-1');
    expect(shape(foreign, 'doc-1')).toEqual(shape(unknown, 'doc-unused'));
    expect(foreign.status).toBe(404);

    const taken = await bob.post(`/api/datastores/upsert/${bobStore}`, {
      documents: [{ id: 'doc-1', name: 'bob ledger', text: 'Bob writes the harbour tides in his ledger.' }],
    });
    const free = await bob.post(`/api/datastores/upsert/${bobStore}`, {
      documents: [{ id: 'doc-2', name: 'bob ledger', text: 'Bob writes the harbour tides in his ledger.' }],
    });
    expect(shape(taken, 'doc-1')).toEqual(shape(free, 'doc-2'));
    expect(taken.status).toBe(200);
    expect(taken.text).not.toContain(aliceStore);
  });

  it('shows each owner its own doc-1 in Get, List, fragments, filters and agent sources', async () => {
    const alices = await alice.get<DatasourceBody>('/api/datasources/doc-1');
    const bobs = await bob.get<DatasourceBody>('/api/datasources/doc-1');
    expect([alices.body.id, alices.body.datastoreId, alices.body.name]).toEqual(['doc-1', aliceStore, 'alice ledger']);
    expect([bobs.body.id, bobs.body.datastoreId, bobs.body.name]).toEqual(['doc-1', bobStore, 'bob ledger']);
    expect((await bob.get<DatasourceBody[]>('/api/datasources')).body.map((source) => source.id)).toEqual(['doc-1', 'doc-2']);
    expect((await alice.get<DatasourceBody[]>('/api/datasources')).body.map((source) => source.id)).toEqual(['doc-1']);

    const query = (as: typeof alice, datastore: string) =>
      as.post<Fragment[]>(`/api/datastores/${datastore}/query`, { query: 'ledger', topK: 5, filters: { datasource_ids: ['doc-1'] } });
    const aliceFragments = (await query(alice, aliceStore)).body;
    const bobFragments = (await query(bob, bobStore)).body;
    expect(aliceFragments.map((fragment) => [fragment.datasource_id, fragment.text.slice(0, 12)])).toEqual([['doc-1', 'ALICE SECRET']]);
    expect(bobFragments.map((fragment) => [fragment.datasource_id, fragment.text.slice(0, 10)])).toEqual([['doc-1', 'Bob writes']]);
    const unfiltered = (await bob.post<Fragment[]>(`/api/datastores/${bobStore}/query`, { query: 'ledger', topK: 5 })).body;
    expect(unfiltered.map((fragment) => fragment.datasource_id).sort()).toEqual(['doc-1', 'doc-2']);
    expect(JSON.stringify(unfiltered)).not.toContain('ALICE');

    const agentId = (
      await bob.post<{ id: string }>('/api/agents', { name: 'T', description: 'd', tools: [{ type: 'datastore', datastoreId: bobStore }] })
    ).body.id;
    const answer = await bob.post<{ sources: { datasource_id: string; text: string }[] }>(`/api/agents/${agentId}/query`, {
      query: 'What is in the ledger?',
      filters: { datasource_ids: ['doc-1'] },
    });
    expect(answer.body.sources.map((source) => source.datasource_id)).toEqual(['doc-1']);
    expect(JSON.stringify(fixture.openai.chatRequests())).not.toContain('ALICE');
  });

  it("updates and deletes the caller's doc-1 only", async () => {
    const updated = await bob.post<{ id: string }>(`/api/datastores/update/${bobStore}`, {
      id: 'doc-1',
      text: 'Bob now logs the harbour tides in a new ledger.',
    });
    expect(updated.body).toEqual({ id: 'doc-1' });
    // Alice's doc-1 is not in Bob's datastore: naming it there is a plain 404.
    const elsewhere = await bob.post(`/api/datastores/update/${aliceStore}`, { id: 'doc-1', text: 'x' });
    expect(elsewhere.status).toBe(404);

    const deleted = await bob.delete<DatasourceBody>('/api/datasources/doc-1');
    expect([deleted.status, deleted.body.id, deleted.body.datastoreId]).toEqual([200, 'doc-1', bobStore]);
    expect((await bob.get('/api/datasources/doc-1')).status).toBe(404);
    expect(shape(await bob.delete('/api/datasources/doc-1'), 'doc-1')).toEqual(
      shape(await bob.delete('/api/datasources/doc-unused'), 'doc-unused'),
    );

    const alices = await alice.get<DatasourceBody>('/api/datasources/doc-1');
    expect([alices.status, alices.body.name]).toEqual([200, 'alice ledger']);
    const fragments = await alice.post<Fragment[]>(`/api/datastores/${aliceStore}/query`, { query: 'lighthouse ledger', topK: 5 });
    expect(fragments.body.map((fragment) => fragment.datasource_id)).toEqual(['doc-1']);
  });
});

describe('per-owner document ids (work done)', () => {
  /** The store methods an upsert calls, in order: the same list means the same reads and writes. */
  function countingStore(inner: RetrievalStore, calls: string[]): RetrievalStore {
    return new Proxy(inner, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push(String(property));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }

  it("upserting another owner's id makes the same store calls as a free id", async () => {
    const calls: string[] = [];
    const { retrieval, accounts } = memoryStores();
    const ragdesk = createRagdesk({
      retrieval: countingStore(retrieval, calls),
      accounts,
      index: exactIndex(),
      embeddings: localEmbeddings(),
    });
    try {
      const alices = await ragdesk.datastores.create({ name: 'Alice' }, { ownerId: 'alice' });
      const bobs = await ragdesk.datastores.create({ name: 'Bob' }, { ownerId: 'bob' });
      await alices.upsert([{ id: 'doc-1', text: 'Alice keeps the ledger.' }]);
      await bobs.upsert([{ id: 'warm-up', text: 'Bob keeps a ledger too.' }]);

      const upsertCalls = async (id: string) => {
        calls.length = 0;
        expect(await bobs.upsert([{ id, text: 'Bob keeps a ledger too.' }])).toEqual({ ids: [id] });
        return [...calls];
      };
      const taken = await upsertCalls('doc-1');
      const free = await upsertCalls('doc-9');
      expect(taken).toEqual(free);
      expect(taken).toContain('getDatasources');
    } finally {
      await ragdesk.close();
    }
  });
});
