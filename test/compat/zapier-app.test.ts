import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../http/client.js';
import { DOCUMENTS, openFixture, type Fixture } from '../http/fixture.js';
import { OpenApiValidator } from '../http/openapi-validator.js';
import { startServer, type RunningServer } from '../http/servers.js';

/**
 * The reference's Zapier app, call by call as its definitions make them (its `API_URL` pointed at
 * ragdesk): the connection test, the two lists that fill its dropdowns, Query Agent (optional
 * "Truncate Query" left empty or set), Query Datastore and Upload File. Fields are rendered into
 * strings by Zapier's templates, so an empty optional field arrives as "".
 */
describe("the reference's Zapier app against ragdesk", () => {
  let fixture: Fixture;
  let server: RunningServer;
  let api: ApiClient;
  let datastoreId: string;
  let agentId: string;
  let zapierKey: string;

  // The key goes as `Authorization: Bearer` (ApiClient sets it); Zapier also sends Accept.
  const zapierHeaders = (_key: string) => ({ Accept: 'application/json' });

  beforeAll(async () => {
    fixture = await openFixture({ openai: { reply: () => 'Twice a day.' } });
    server = await startServer('express', fixture.handler);
    api = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), null);
    zapierKey = (await fixture.ragdesk.keys.create({ ownerId: 'acme', name: 'zapier', scopes: ['read', 'write', 'query'] })).key;
    datastoreId = (await api.post<{ id: string }>('/api/datastores', { name: 'Handbook' }, { key: zapierKey })).body.id;
    await api.post(`/api/external/datastores/upsert/${datastoreId}`, { documents: DOCUMENTS }, { key: zapierKey });
    agentId = (
      await api.post<{ id: string }>(
        '/api/agents',
        { name: 'Helper', description: 'd', tools: [{ type: 'datastore', datastoreId }] },
        { key: zapierKey },
      )
    ).body.id;
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  it('connection test: GET /api/me names the owner and what the key may do, nothing secret', async () => {
    const me = await api.get<Record<string, unknown>>('/api/me', { key: zapierKey, headers: zapierHeaders(zapierKey) });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      id: 'acme',
      name: 'acme',
      ownerId: 'acme',
      keyId: expect.any(String) as string,
      scopes: ['read', 'write', 'query'],
      datastoreIds: null,
    });
    expect(zapierKey).toContain(me.body.keyId);
    expect(me.text).not.toContain(zapierKey);
    // A bad key fails the connection test; no key is the usual 401.
    expect((await api.get('/api/me', { key: `${zapierKey.slice(0, -4)}AAAA` })).status).toBe(401);
    expect((await api.get('/api/me', { key: null })).status).toBe(401);
  });

  it('the dropdowns: GET /api/agents and GET /api/datastores give id and name', async () => {
    const agents = await api.get<{ id: string; name: string }[]>('/api/agents', { key: zapierKey, headers: zapierHeaders(zapierKey) });
    const datastores = await api.get<{ id: string; name: string; description: string }[]>('/api/datastores', { key: zapierKey });
    expect(agents.body.map(({ id, name }) => ({ id, name }))).toEqual([{ id: agentId, name: 'Helper' }]);
    expect(datastores.body.map(({ id, name }) => ({ id, name }))).toEqual([{ id: datastoreId, name: 'Handbook' }]);
  });

  it('Query Agent with "Truncate Query" left empty, and set (Zapier sends "true")', async () => {
    for (const truncateQuery of ['', 'true']) {
      const answer = await api.post<{ answer: string; warnings: string[] }>(
        `/api/agents/${agentId}/query`,
        { query: 'How often do tides rise?', truncateQuery },
        { key: zapierKey, headers: zapierHeaders(zapierKey) },
      );
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.answer).toBe('Twice a day.');
      expect(answer.body.warnings.some((warning) => warning.includes('truncateQuery'))).toBe(truncateQuery !== '');
    }
    const wrong = await api.post<{ error: { details: { issues: { path: string }[] } } }>(
      `/api/agents/${agentId}/query`,
      { query: 'x', truncateQuery: 'sometimes' },
      { key: zapierKey },
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details.issues.map((issue) => issue.path)).toEqual(['truncateQuery']);
  });

  it('Query Datastore: POST /api/datastores/{id}/query with the query alone', async () => {
    const fragments = await api.post<{ text: string; source: string; score: number }[]>(
      `/api/datastores/${datastoreId}/query`,
      { query: 'What makes sourdough rise?' },
      { key: zapierKey, headers: zapierHeaders(zapierKey) },
    );
    expect(fragments.status).toBe(200);
    expect(fragments.body[0]!.text).toContain('Sourdough');
  });

  it('Upload File: multipart to /api/external/datastores/file-upload/{id}, with the empty fileName it sends when none is given', async () => {
    const form = new FormData();
    form.append('file', new Blob(['Harbour office hours are 8 to 6.'], { type: 'text/plain' }), 'office-hours.txt');
    form.append('fileName', '');
    const uploaded = await api.call<{ name: string; datastoreId: string }>('POST', `/api/external/datastores/file-upload/${datastoreId}`, {
      key: zapierKey,
      body: form,
    });
    expect(uploaded.status, uploaded.text).toBe(200);
    expect(uploaded.body).toMatchObject({ name: 'office-hours.txt', datastoreId });
  });
});
