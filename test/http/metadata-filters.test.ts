import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFixture, type Fixture } from './fixture.js';
import { startServer, type RunningServer } from './servers.js';

interface ErrorBody {
  error: { code: string; message: string; details: { issues?: { path: string; message: string }[] } };
}

describe('metadata filters and Datasource Update over HTTP', () => {
  let fixture: Fixture;
  let server: RunningServer;
  let datastoreId: string;
  let fileId: string;

  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const isForm = body instanceof FormData;
    const response = await fetch(server.origin + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body !== undefined && !isForm ? { 'content-type': 'application/json' } : {}) },
      ...(body === undefined ? {} : { body: isForm ? body : JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & Partial<ErrorBody> };
  };
  const query = (filters: unknown) =>
    call('POST', `/api/datastores/${datastoreId}/query`, fixture.alice, { query: 'lighthouse keeper', topK: 10, filters });
  const sourcesOf = (body: unknown) => new Set((body as { datasource_id: string }[]).map((fragment) => fragment.datasource_id));

  beforeAll(async () => {
    fixture = await openFixture();
    server = await startServer('node:http', fixture.handler);
    datastoreId = (await fixture.ragdesk.datastores.create({ name: 'meta' }, { ownerId: 'alice' })).id;
    const upsert = await call('POST', `/api/datastores/upsert/${datastoreId}`, fixture.alice, {
      documents: [
        { id: 'note-1', text: 'The lighthouse keeper logged the storm at dawn.', metadata: { lang: 'en', year: 2021 } },
        { id: 'note-2', text: 'A lighthouse keeper painted the lamp room red.', metadata: { lang: 'fr', year: 2019 } },
      ],
    });
    expect(upsert.status).toBe(200);
    const form = new FormData();
    form.set('type', 'file');
    form.set('datastoreId', datastoreId);
    form.set('metadata', JSON.stringify({ lang: 'de', year: 2024, published: '2024-05-01' }));
    form.set('file', new Blob(['The lighthouse keeper kept a diary of ships.']), 'diary.txt');
    const created = await call('POST', '/api/datasources', fixture.alice, form);
    expect(created.status).toBe(200);
    fileId = created.body.id as string;
    expect(created.body.metadata).toEqual({ lang: 'de', year: 2024, published: '2024-05-01' });
    for (;;) {
      const { body } = await call('GET', `/api/datasources/${fileId}`, fixture.alice);
      if (body.status === 'synched') break;
      expect(body.status === 'pending' || body.status === 'running').toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
  afterAll(async () => {
    await server.close();
    await fixture.close();
  });

  it('filters a query by the metadata of upserted documents and of a file', async () => {
    expect(sourcesOf((await query({ metadata: { key: 'lang', in: ['en', 'de'] } })).body)).toEqual(new Set(['note-1', fileId]));
    expect(sourcesOf((await query({ metadata: { key: 'published', gte: '2024-01-01' } })).body)).toEqual(new Set([fileId]));
    expect(sourcesOf((await query({ metadata: { not: { key: 'year', gt: 2020 } } })).body)).toEqual(new Set(['note-2']));
  });

  it('answers a bad filter with 400 naming the path', async () => {
    const response = await query({ metadata: { or: [{ key: 'year', gte: 'soon' }] } });
    expect(response.status).toBe(400);
    expect(response.body.error!.code).toBe('invalid_request');
    expect(response.body.error!.details.issues![0]!.path).toBe('filters.metadata.or.0.gte');
    const form = new FormData();
    form.set('type', 'file');
    form.set('datastoreId', datastoreId);
    form.set('metadata', '{"lang": ');
    form.set('file', new Blob(['x']), 'x.txt');
    const refused = await call('POST', '/api/datasources', fixture.alice, form);
    expect(refused.status).toBe(400);
    expect(refused.body.error!.details.issues![0]!.path).toBe('metadata');
  });

  it('PATCH /datasources/{id} replaces metadata in place; another owner gets 404', async () => {
    const patched = await call('PATCH', `/api/datasources/${fileId}`, fixture.alice, { metadata: { lang: 'en', year: 2025 } });
    expect(patched.status).toBe(200);
    expect(patched.body.metadata).toEqual({ lang: 'en', year: 2025 });
    expect(patched.body.status).toBe('synched');
    expect(sourcesOf((await query({ metadata: { key: 'lang', eq: 'en' } })).body)).toEqual(new Set(['note-1', fileId]));
    expect((await call('PATCH', `/api/datasources/${fileId}`, fixture.bob, { metadata: {} })).status).toBe(404);
    const bad = await call('PATCH', `/api/datasources/${fileId}`, fixture.alice, { metadata: { deep: { no: 1 } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error!.details.issues![0]!.path).toMatch(/^metadata/);
  });
});
