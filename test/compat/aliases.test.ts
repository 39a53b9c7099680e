import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../http/client.js';
import { DOCUMENTS, openFixture, type Fixture } from '../http/fixture.js';
import { OpenApiValidator } from '../http/openapi-validator.js';
import { startServer, type RunningServer, type ServerKind } from '../http/servers.js';
import { roundedScores } from '../helpers/rounded-scores.js';

interface Fragment {
  text: string;
  custom_id: string | null;
}

describe.each<ServerKind>(['node:http', 'express'])('reference route aliases on %s', (kind) => {
  let fixture: Fixture;
  let server: RunningServer;
  let api: ApiClient;
  let datastoreId: string;
  let agentId: string;

  beforeAll(async () => {
    fixture = await openFixture({ openai: { reply: () => 'From the alias.' } });
    server = await startServer(kind, fixture.handler);
    api = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), fixture.alice);
    datastoreId = (await api.post<{ id: string }>('/api/datastores', { name: 'Aliases' })).body.id;
    agentId = (await api.post<{ id: string }>('/api/agents', { name: 'A', description: 'd', tools: [{ type: 'datastore', datastoreId }] }))
      .body.id;
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  it('/datastores/upsert, /datastores/update and /api/datastores/query answer like their main routes', async () => {
    const upserted = await api.post<{ ids: string[] }>(`/datastores/upsert/${datastoreId}`, { documents: DOCUMENTS });
    expect(upserted.status).toBe(200);
    expect(upserted.body.ids).toHaveLength(3);
    const updated = await api.post<{ id: string }>(`/datastores/update/${datastoreId}`, {
      id: upserted.body.ids[0],
      text: 'Tides rise twice a day at the harbour.',
    });
    expect(updated.body).toEqual({ id: upserted.body.ids[0] });
    const viaAlias = await api.post<Fragment[]>(`/api/datastores/query/${datastoreId}`, { query: 'harbour tides', topK: 2 });
    const viaMain = await api.post<Fragment[]>(`/api/datastores/${datastoreId}/query`, { query: 'harbour tides', topK: 2 });
    expect(viaAlias.status).toBe(200);
    expect(roundedScores(viaAlias.body)).toEqual(roundedScores(viaMain.body));
    expect(viaAlias.body[0]!.text).toContain('harbour');
  });

  it('/datastores/file-upload takes the multipart form; /agents/query answers like /api/agents/{id}/query', async () => {
    const form = new FormData();
    form.append('file', new Blob(['Comets have tails of gas and dust.'], { type: 'text/markdown' }), 'comets.md');
    form.append('custom_id', 'tenant-9');
    const uploaded = await api.call<{ name: string; custom_id: string | null }>('POST', `/datastores/file-upload/${datastoreId}`, {
      body: form,
    });
    expect(uploaded.status).toBe(200);
    expect(uploaded.body).toMatchObject({ name: 'comets.md', custom_id: 'tenant-9' });
    const answer = await api.post<{ answer: string }>(`/agents/query/${agentId}`, { query: 'What causes tides?' });
    expect(answer.status).toBe(200);
    expect(answer.body.answer).toBe('From the alias.');
  });

  it('a path outside the base path that is no alias is still not ours', async () => {
    const response = await fetch(`${server.origin}/agents/${agentId}/query`, { method: 'POST' });
    expect(response.status).toBe(404);
  });
});

describe('the OpenAPI document lists the aliases as deprecated', () => {
  it('with their paths outside /api where the reference serves them so', async () => {
    const fixture = await openFixture();
    try {
      const paths = fixture.handler.openapi().paths as Record<string, Record<string, { deprecated?: boolean; summary: string }>>;
      for (const [path, method] of [
        ['/api/datastores/query/{id}', 'post'],
        ['/agents/query/{id}', 'post'],
        ['/datastores/upsert/{datastoreId}', 'post'],
        ['/datastores/update/{datastoreId}', 'post'],
        ['/datastores/file-upload/{datastoreId}', 'post'],
      ] as const) {
        expect(paths[path]?.[method]?.deprecated, path).toBe(true);
        expect(paths[path]?.[method]?.summary, path).toMatch(/^Deprecated alias of POST \/api\//);
      }
    } finally {
      await fixture.close();
    }
  });
});

describe('custom_id is the one spelling on the wire', () => {
  it('datasource JSON, config, fragments and sources all say custom_id', async () => {
    const fixture = await openFixture({ openai: { reply: () => 'ok' } });
    const server = await startServer('node:http', fixture.handler);
    try {
      const api = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), fixture.alice);
      const datastoreId = (await api.post<{ id: string }>('/api/datastores', { name: 'Tenants' })).body.id;
      const form = new FormData();
      form.append('type', 'file');
      form.append('datastoreId', datastoreId);
      form.append('custom_id', 'tenant-7');
      form.append('file', new Blob(['Glaciers carve valleys over thousands of years.'], { type: 'text/plain' }), 'glaciers.txt');
      const created = await api.call<Record<string, unknown>>('POST', '/api/datasources', { body: form });
      expect(created.body).toMatchObject({ custom_id: 'tenant-7', config: { custom_id: 'tenant-7' } });
      expect(created.body).not.toHaveProperty('customId');
      const id = created.body.id as string;
      // Waits up to 30 s (a parse in a child process is slow to start on a loaded machine).
      for (let i = 0; i < 600 && (await api.get<{ status: string }>(`/api/datasources/${id}`)).body.status !== 'synched'; i++)
        await new Promise((r) => setTimeout(r, 50));
      const listed = await api.get<Record<string, unknown>[]>(`/api/datasources?datastoreId=${datastoreId}`);
      expect(listed.body[0]).toMatchObject({ custom_id: 'tenant-7' });
      expect(listed.body[0]).not.toHaveProperty('customId');
      const fragments = await api.post<Fragment[]>(`/api/datastores/${datastoreId}/query`, {
        query: 'glaciers valleys',
        filters: { custom_ids: ['tenant-7'] },
      });
      expect(fragments.body[0]!.custom_id).toBe('tenant-7');
      const agentId = (
        await api.post<{ id: string }>('/api/agents', { name: 'T', description: 'd', tools: [{ type: 'datastore', datastoreId }] })
      ).body.id;
      const answer = await api.post<{ sources: { custom_id: string | null }[] }>(`/api/agents/${agentId}/query`, {
        query: 'What do glaciers carve?',
      });
      expect(answer.body.sources[0]!.custom_id).toBe('tenant-7');
      const document = JSON.stringify(fixture.handler.openapi());
      expect(document).not.toContain('customId');
    } finally {
      await server.close();
      await fixture.close();
    }
  });
});
