import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from './client.js';
import { DOCUMENTS, openFixture, type Fixture } from './fixture.js';
import { OpenApiValidator } from './openapi-validator.js';
import { SERVER_KINDS, startServer, type RunningServer } from './servers.js';

interface Datastore {
  id: string;
  name: string;
  description: string;
  ownerId: string | null;
}
interface Datasource {
  id: string;
  status: string;
  name: string;
  datastoreId: string;
  custom_id: string | null;
  nbChunks: number;
}
interface Agent {
  id: string;
  name: string;
  description: string;
  datastoreIds: string[];
  tools: { type: string; datastoreId: string }[];
  visibility: string;
  temperature: number;
}
interface Fragment {
  text: string;
  score: number;
  source: string;
  datasource_id: string;
  datasource_name: string;
}
interface ErrorBody {
  error: { code: string; message: string; details?: { issues?: { path: string; message: string }[]; allowed?: string[] } };
}

describe.each(SERVER_KINDS)('the same request suite on %s', (kind) => {
  let fixture: Fixture;
  let server: RunningServer;
  let api: ApiClient;

  beforeAll(async () => {
    fixture = await openFixture();
    server = await startServer(kind, fixture.handler);
    api = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), fixture.alice);
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  it('serves the OpenAPI document without a key', async () => {
    const response = await api.get<{ openapi: string; paths: Record<string, unknown> }>('/api/openapi.json', { key: null });
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    expect(response.body).toEqual(fixture.handler.openapi());
  });

  it('creates, reads, renames, queries and deletes a datastore with upserted documents', async () => {
    const created = await api.post<Datastore>('/api/datastores', { name: 'Science', description: 'facts' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: 'Science', description: 'facts', ownerId: 'alice' });
    const id = created.body.id;

    expect((await api.get<Datastore>(`/api/datastores/${id}`)).body.name).toBe('Science');
    expect((await api.get<Datastore[]>('/api/datastores')).body.map((d) => d.id)).toContain(id);
    const renamed = await api.patch<Datastore>(`/api/datastores/${id}`, { name: 'Nature' });
    expect(renamed.body).toMatchObject({ id, name: 'Nature', description: 'facts' });

    const upserted = await api.post<{ ids: string[] }>(`/api/datastores/upsert/${id}`, { documents: DOCUMENTS.slice(0, 2) });
    expect(upserted.status).toBe(200);
    expect(upserted.body.ids).toHaveLength(2);
    const aliased = await api.post<{ ids: string[] }>(`/api/external/datastores/upsert/${id}`, { documents: [DOCUMENTS[2]] });
    expect(aliased.body.ids).toHaveLength(1);

    const query = await api.post<Fragment[]>(`/api/datastores/${id}/query`, { query: 'why does sourdough bread rise?', topK: 2 });
    expect(query.status).toBe(200);
    expect(query.body[0]).toMatchObject({ datasource_id: aliased.body.ids[0], datasource_name: 'bread.md' });
    expect(query.body.length).toBeLessThanOrEqual(2);

    const updated = await api.post<{ id: string }>(`/api/datastores/update/${id}`, {
      id: upserted.body.ids[0],
      text: 'Glaciers carve valleys as the ice slowly grinds the rock beneath it.',
      name: 'glaciers.md',
    });
    expect(updated.body).toEqual({ id: upserted.body.ids[0] });
    await api.post(`/api/external/datastores/update/${id}`, {
      id: upserted.body.ids[1],
      text: 'Deserts receive less than 250 mm of rain a year.',
    });
    const after = await api.post<Fragment[]>(`/api/datastores/${id}/query`, { query: 'glaciers carving valleys', topK: 1 });
    expect(after.body[0]?.datasource_name).toBe('glaciers.md');

    const deleted = await api.delete<Datastore>(`/api/datastores/${id}`);
    expect(deleted.body.id).toBe(id);
    const gone = await api.get<ErrorBody>(`/api/datastores/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('not_found');
  });

  it('manages agents with tools and answers queries as JSON and as an event stream', async () => {
    const datastore = (await api.post<Datastore>('/api/datastores', { name: 'Agent store' })).body;
    await api.post(`/api/datastores/upsert/${datastore.id}`, { documents: DOCUMENTS });
    const created = await api.post<Agent>('/api/agents', {
      name: 'Helper',
      description: 'answers science questions',
      tools: [{ type: 'datastore', datastoreId: datastore.id }],
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      name: 'Helper',
      datastoreIds: [datastore.id],
      tools: [{ type: 'datastore', datastoreId: datastore.id }],
    });
    const id = created.body.id;
    expect((await api.get<Agent>(`/api/agents/${id}`)).body.id).toBe(id);
    expect((await api.get<Agent[]>('/api/agents')).body.map((agent) => agent.id)).toContain(id);

    const patched = await api.patch<Agent>(`/api/agents/${id}`, { description: 'now public', visibility: 'public', temperature: 0.5 });
    expect(patched.body).toMatchObject({ name: 'Helper', description: 'now public', visibility: 'public', temperature: 0.5 });
    const noDescription = await api.patch<ErrorBody>(`/api/agents/${id}`, { name: 'x' });
    expect(noDescription.status).toBe(400);
    expect(noDescription.body.error.details?.issues?.map((issue) => issue.path)).toContain('description');

    fixture.openai.configure({ reply: () => 'The moon pulls the oceans.' });
    const answer = await api.post<{ answer: string; conversationId: string; visitorId: string; sources: { datasource_name: string }[] }>(
      `/api/agents/${id}/query`,
      { query: 'What causes tides?' },
    );
    expect(answer.status).toBe(200);
    expect(answer.body.answer).toBe('The moon pulls the oceans.');
    expect(answer.body.sources.map((source) => source.datasource_name)).toContain('tides.md');
    const upstream = fixture.openai.chatRequests().at(-1);
    expect(JSON.stringify(upstream?.messages)).toContain('gravitational pull of the moon');

    // Streaming over the wire, decoded by hand here (the eventsource client is in sse.test.ts).
    const response = await fetch(`${server.origin}/api/agents/${id}/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fixture.alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'What causes tides?', streaming: true, conversationId: answer.body.conversationId }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    const text = await response.text();
    const frames = text.split('\n\n').filter(Boolean);
    expect(frames.at(-1)).toBe('data: [DONE]');
    const deltas = frames
      .filter((frame) => frame.startsWith('event: answer\n'))
      .map((frame) => decodeURIComponent(frame.split('\ndata: ')[1]!));
    expect(deltas.join('')).toBe('The moon pulls the oceans.');
    const final = frames.find((frame) => frame.startsWith('event: endpoint_response\n'))!;
    const payload = JSON.parse(decodeURIComponent(final.split('\ndata: ')[1]!)) as { answer: string; conversationId: string };
    expect(payload).toMatchObject({ answer: 'The moon pulls the oceans.', conversationId: answer.body.conversationId });
    api.validator.validate('POST', `/api/agents/${id}/query`, 200, 'application/json', payload);

    const deleted = await api.delete<Agent>(`/api/agents/${id}`, { json: {} });
    expect(deleted.body.id).toBe(id);
    expect((await api.get(`/api/agents/${id}`)).status).toBe(404);
  });

  it('creates file datasources from multipart forms (both endpoints) and web datasources from JSON', async () => {
    const datastore = (await api.post<Datastore>('/api/datastores', { name: 'Files' })).body;
    const form = new FormData();
    form.set('type', 'file');
    form.set('datastoreId', datastore.id);
    form.set('custom_id', 'tenant-7');
    form.set(
      'file',
      new Blob(['# Comets\n\nComets grow tails of gas and dust when they pass close to the sun.\n'], { type: 'text/markdown' }),
      'comets.md',
    );
    const created = await api.post<Datasource>('/api/datasources', undefined, { body: form });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: 'comets.md', datastoreId: datastore.id, custom_id: 'tenant-7' });

    const upload = new FormData();
    upload.set('file', new Blob(['name,moons\nMars,2\nJupiter,95\n'], { type: 'text/csv' }), 'moons.csv');
    upload.set('fileName', 'planet moons.csv');
    const uploaded = await api.post<Datasource>(`/api/external/datastores/file-upload/${datastore.id}`, undefined, { body: upload });
    expect(uploaded.status).toBe(200);
    expect(uploaded.body.name).toBe('planet moons.csv');

    for (const id of [created.body.id, uploaded.body.id]) {
      await fixture.ragdesk.datasources.waitUntilSettled(id, 20_000);
      const polled = await api.get<Datasource>(`/api/datasources/${id}`);
      expect(polled.body.status).toBe('synched');
    }
    const listed = await api.get<Datasource[]>(`/api/datasources?datastoreId=${datastore.id}`);
    expect(listed.body.map((ds) => ds.id).sort()).toEqual([created.body.id, uploaded.body.id].sort());
    expect((await api.get<Datasource[]>('/api/datasources')).body.map((ds) => ds.id)).toEqual(
      expect.arrayContaining(listed.body.map((ds) => ds.id)),
    );
    const hits = await api.post<Fragment[]>(`/api/datastores/${datastore.id}/query`, {
      query: 'comet tails',
      topK: 1,
      filters: { custom_ids: ['tenant-7'] },
    });
    expect(hits.body[0]?.text).toContain('tails of gas and dust');

    const page = await api.post<Datasource>('/api/datasources', {
      type: 'web_page',
      datastoreId: datastore.id,
      name: 'Example',
      config: { source_url: 'https://example.invalid/page' },
    });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ name: 'Example', status: 'pending' });
    const removed = await api.delete<Datasource>(`/api/datasources/${page.body.id}`);
    expect(removed.body.id).toBe(page.body.id);
    expect((await api.get(`/api/datasources/${page.body.id}`)).status).toBe(404);
  });

  it('answers errors as JSON with a code: 404, 405, malformed JSON, wrong media type, named bad fields', async () => {
    const unknown = await api.get<ErrorBody>('/api/nothing-here');
    expect(unknown.status).toBe(404);
    const wrongMethod = await api.call<ErrorBody>('PUT', '/api/datastores');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST');
    const malformed = await api.post<ErrorBody>('/api/datastores', undefined, {
      body: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('invalid_request');
    const wrongType = await api.post<ErrorBody>('/api/datastores', undefined, {
      body: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(wrongType.status).toBe(415);
    const datastore = (await api.post<Datastore>('/api/datastores', { name: 'Errors' })).body;
    const invalid = await api.post<ErrorBody>(`/api/datastores/${datastore.id}/query`, {
      query: 7,
      topK: -1,
      filters: { custom_ids: 'x' },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.details?.issues?.map((issue) => issue.path).sort()).toEqual(['filters.custom_ids', 'query', 'topK']);
    expect(invalid.headers.get('x-request-id')).toMatch(/.+/);
  });
  it('logged no server error during the suite (runs last)', () => {
    expect(fixture.logged).toEqual([]);
  });
});
