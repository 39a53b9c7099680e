import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../http/client.js';
import { DOCUMENTS, openFixture, type Fixture } from '../http/fixture.js';
import { OpenApiValidator } from '../http/openapi-validator.js';
import { startServer, type RunningServer } from '../http/servers.js';
import { roundedScores } from '../helpers/rounded-scores.js';

interface ErrorBody {
  error: { code: string; message: string; details: { issues?: { path: string; message: string }[] } };
}

describe("the reference's smaller differences", () => {
  let fixture: Fixture;
  let server: RunningServer;
  let api: ApiClient;
  let datastoreId: string;

  beforeAll(async () => {
    fixture = await openFixture();
    server = await startServer('node:http', fixture.handler);
    api = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), fixture.alice);
    datastoreId = (await api.post<{ id: string }>('/api/datastores', { name: 'Small' })).body.id;
    await api.post(`/api/external/datastores/upsert/${datastoreId}`, { documents: DOCUMENTS });
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  it('/datastores/query/{id} on the API host answers like the main route', async () => {
    const viaAlias = await api.post<{ text: string }[]>(`/datastores/query/${datastoreId}`, { query: 'volcano lava', topK: 2 });
    const viaMain = await api.post<{ text: string }[]>(`/api/datastores/${datastoreId}/query`, { query: 'volcano lava', topK: 2 });
    expect(viaAlias.status).toBe(200);
    expect(roundedScores(viaAlias.body)).toEqual(roundedScores(viaMain.body));
    expect(viaAlias.body[0]!.text).toContain('volcano');
    const paths = fixture.handler.openapi().paths as Record<string, Record<string, { deprecated?: boolean }>>;
    expect(paths['/datastores/query/{id}']?.post?.deprecated).toBe(true);
  });

  it('the sync route answers custom_id like every other datasource answer (checked against the OpenAPI document)', async () => {
    const form = new FormData();
    form.append('file', new Blob(['Lighthouse keepers log the weather hourly.'], { type: 'text/plain' }), 'log.txt');
    form.append('custom_id', 'tenant-3');
    const created = await api.call<{ id: string }>('POST', `/api/external/datastores/file-upload/${datastoreId}`, { body: form });
    expect(created.status, created.text).toBe(200);
    const synced = await api.post<Record<string, unknown>>(`/api/datasources/${created.body.id}/sync`);
    expect(synced.status).toBe(200);
    expect(synced.body.custom_id).toBe('tenant-3');
    expect(synced.body).not.toHaveProperty('customId');
  });

  it('datastore type and visibility are refused by name with the reason, not dropped; visibility "private" is what every datastore is', async () => {
    const typed = await api.post<ErrorBody>('/api/datastores', { name: 'Q', type: 'qdrant' });
    expect(typed.status).toBe(400);
    expect(typed.body.error.details.issues).toEqual([{ path: 'type', message: expect.stringContaining('index adapter') as string }]);
    const open = await api.patch<ErrorBody>(`/api/datastores/${datastoreId}`, { visibility: 'public' });
    expect(open.status).toBe(400);
    expect(open.body.error.details.issues).toEqual([{ path: 'visibility', message: expect.stringContaining('public agent') as string }]);
    expect((await api.post('/api/datastores', { name: 'P', visibility: 'private' })).status).toBe(200);
  });
});
