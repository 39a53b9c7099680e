import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localEmbeddings } from '../../adapters/local/index.js';
import { ApiClient } from '../http/client.js';
import { openFixture, type Fixture } from '../http/fixture.js';
import { OpenApiValidator } from '../http/openapi-validator.js';
import { startServer, type RunningServer } from '../http/servers.js';
import { countingEmbeddings, SETUPS, tempDir } from '../helpers/setups.js';

interface ErrorBody {
  error: { code: string; message: string; details: { issues?: { path: string }[] } };
}

describe('upsert with document ids (HTTP)', () => {
  let fixture: Fixture;
  let server: RunningServer;
  let api: ApiClient;
  let datastoreId: string;

  beforeAll(async () => {
    fixture = await openFixture();
    server = await startServer('node:http', fixture.handler);
    api = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), fixture.alice);
    datastoreId = (await api.post<{ id: string }>('/api/datastores', { name: 'Ids' })).body.id;
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  it('the same id twice updates one document instead of creating two', async () => {
    const first = await api.post<{ ids: string[] }>(`/api/datastores/upsert/${datastoreId}`, {
      documents: [{ id: 'my-doc-1', text: 'Otters hold hands while sleeping.' }],
    });
    expect(first.body.ids).toEqual(['my-doc-1']);
    const second = await api.post<{ ids: string[] }>(`/api/datastores/upsert/${datastoreId}`, {
      documents: [{ id: 'my-doc-1', text: 'Otters hold hands while they sleep on the water.', name: 'otters' }],
    });
    expect(second.body.ids).toEqual(['my-doc-1']);
    const listed = await api.get<{ id: string; name: string }[]>(`/api/datasources?datastoreId=${datastoreId}`);
    expect(listed.body.map((datasource) => [datasource.id, datasource.name])).toEqual([['my-doc-1', 'otters']]);
    const fragments = await api.post<{ text: string }[]>(`/api/datastores/${datastoreId}/query`, { query: 'otters sleep water', topK: 5 });
    expect(fragments.body.map((fragment) => fragment.text)).toEqual(['Otters hold hands while they sleep on the water.']);
  });

  it("another datastore's id of the same owner is a 409; another owner's id is free; bad ids are a 400", async () => {
    const other = (await api.post<{ id: string }>('/api/datastores', { name: 'Other' })).body.id;
    const taken = await api.post<ErrorBody>(`/api/datastores/upsert/${other}`, { documents: [{ id: 'my-doc-1', text: 'x' }] });
    expect(taken.status).toBe(409);
    expect(taken.text).not.toContain(datastoreId);
    // Ids are unique within an owner only: Bob's my-doc-1 is his own document beside Alice's.
    const bobStore = (await api.post<{ id: string }>('/api/datastores', { name: 'Bob' }, { key: fixture.bob })).body.id;
    const foreign = await api.post<{ ids: string[] }>(
      `/api/datastores/upsert/${bobStore}`,
      { documents: [{ id: 'my-doc-1', text: 'x' }] },
      { key: fixture.bob },
    );
    expect([foreign.status, foreign.body]).toEqual([200, { ids: ['my-doc-1'] }]);
    const alices = await api.get<{ datastoreId: string; name: string }>('/api/datasources/my-doc-1');
    expect([alices.body.datastoreId, alices.body.name]).toEqual([datastoreId, 'otters']);
    const bad = await api.post<ErrorBody>(`/api/datastores/upsert/${datastoreId}`, {
      documents: [
        { id: '../etc', text: 'x' },
        { id: 'a'.repeat(101), text: 'y' },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues?.map((issue) => issue.path)).toEqual(['documents.0.id', 'documents.1.id']);
    const twice = await api.post<ErrorBody>(`/api/datastores/upsert/${datastoreId}`, {
      documents: [
        { id: 'dup', text: 'x' },
        { id: 'dup', text: 'y' },
      ],
    });
    expect(twice.status).toBe(400);
  });
});

describe.each(SETUPS)('upsert by id re-embeds only changed chunks ($name)', (setup) => {
  it('keeps the vectors of unchanged chunks', async () => {
    const temp = tempDir();
    const embeddings = countingEmbeddings(localEmbeddings());
    const ragdesk = setup.open(temp.dir, embeddings);
    try {
      const datastore = await ragdesk.datastores.create({ name: 'chunks' });
      const paragraphs = Array.from(
        { length: 6 },
        (_, i) => `Paragraph ${i}: ${'lighthouse keepers log the weather every hour. '.repeat(40)}`,
      );
      await datastore.upsert([{ id: 'handbook', text: paragraphs.join('\n\n') }]);
      const embeddedFirst = embeddings.texts.length;
      expect(embeddedFirst).toBeGreaterThan(2);
      paragraphs[5] = `Paragraph 5: the last page changed. ${'keepers now log the tides too. '.repeat(40)}`;
      await datastore.upsert([{ id: 'handbook', text: paragraphs.join('\n\n') }]);
      const embeddedAgain = embeddings.texts.length - embeddedFirst;
      expect(embeddedAgain).toBeGreaterThan(0);
      expect(embeddedAgain).toBeLessThan(embeddedFirst);
      expect((await ragdesk.datasources.list(datastore.id)).map((datasource) => datasource.id)).toEqual(['handbook']);
    } finally {
      await ragdesk.close();
      temp.remove();
    }
  });
});
