/**
 * `GET /api/models` says what the server runs, and agents cannot be saved or queried with a model
 * it does not: an offline server (the extractive answerer) and one with an OpenAI-compatible chat
 * model, over HTTP with every answer checked against the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localAnswerer } from '../../adapters/local/index.js';
import { ApiClient } from './client.js';
import { DOCUMENTS, openFixture, type Fixture } from './fixture.js';
import { OpenApiValidator } from './openapi-validator.js';
import { startServer, type RunningServer } from './servers.js';

interface ServerModels {
  models: string[];
  default: string | null;
  answerer: string | null;
}
interface ErrorBody {
  error: { code: string; message: string; details: { issues?: { path: string }[]; available?: string[] } };
}

async function open(fixture: Fixture): Promise<{ server: RunningServer; api: ApiClient }> {
  const server = await startServer('node:http', fixture.handler);
  return { server, api: new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), fixture.alice) };
}

describe('the models a server runs', () => {
  describe('an offline server', () => {
    let fixture: Fixture;
    let server: RunningServer;
    let api: ApiClient;

    beforeAll(async () => {
      fixture = await openFixture({ chat: localAnswerer() });
      ({ server, api } = await open(fixture));
    });
    afterAll(async () => {
      await server?.close();
      await fixture?.close();
    });

    it('lists only the offline answerer, as the default', async () => {
      const listed = await api.get<ServerModels>('/api/models');
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual({ models: ['local_extractive'], default: 'local_extractive', answerer: 'local:extractive' });
    });

    it('needs a key', async () => {
      expect((await api.get<ErrorBody>('/api/models', { key: null })).status).toBe(401);
    });

    it('gives a new agent the offline answerer and refuses a hosted model, naming the field', async () => {
      const created = await api.post<{ id: string; modelName: string }>('/api/agents', { name: 'plain', description: '' });
      expect(created.status).toBe(200);
      expect(created.body.modelName).toBe('local_extractive');

      const refused = await api.post<ErrorBody>('/api/agents', { name: 'gpt', description: '', modelName: 'gpt_4' });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('model_not_available');
      expect(refused.body.error.details.issues?.map((issue) => issue.path)).toEqual(['modelName']);
      expect(refused.body.error.details.available).toEqual(['local_extractive']);
      const names = (await api.get<{ name: string }[]>('/api/agents')).body.map((agent) => agent.name);
      expect(names).not.toContain('gpt');
    });

    it('refuses an update to a hosted model and a query naming one; answers with its own', async () => {
      const datastore = await api.post<{ id: string }>('/api/datastores', { name: 'nature' });
      await api.post(`/api/datastores/upsert/${datastore.body.id}`, { documents: DOCUMENTS });
      const agent = await api.post<{ id: string }>('/api/agents', {
        name: 'nature',
        description: '',
        tools: [{ type: 'datastore', datastoreId: datastore.body.id }],
      });
      const update = await api.patch<ErrorBody>(`/api/agents/${agent.body.id}`, { description: 'x', modelName: 'gpt_3_5_turbo' });
      expect(update.status).toBe(400);
      expect(update.body.error.code).toBe('model_not_available');
      expect(update.body.error.details.issues?.[0]?.path).toBe('modelName');
      // The form sends the stored model back unchanged: that is accepted.
      const kept = await api.patch<{ modelName: string }>(`/api/agents/${agent.body.id}`, {
        description: 'y',
        modelName: 'local_extractive',
      });
      expect(kept.status).toBe(200);

      const query = await api.post<ErrorBody>(`/api/agents/${agent.body.id}/query`, { query: 'What causes tides?', modelName: 'gpt_4' });
      expect(query.status).toBe(400);
      expect(query.body.error.code).toBe('model_not_available');
      const answered = await api.post<{ answer: string; warnings?: string[] }>(`/api/agents/${agent.body.id}/query`, {
        query: 'What causes tides?',
      });
      expect(answered.status).toBe(200);
      expect(answered.body.answer).toContain('moon');
      expect(answered.body.warnings ?? []).toEqual([]);
    });
  });

  describe('a server with an OpenAI-compatible chat model', () => {
    let fixture: Fixture;
    let server: RunningServer;
    let api: ApiClient;

    beforeAll(async () => {
      fixture = await openFixture({ openai: { reply: () => 'The moon.' } });
      ({ server, api } = await open(fixture));
    });
    afterAll(async () => {
      await server?.close();
      await fixture?.close();
    });

    it('lists the hosted names, gpt_3_5_turbo the default, and refuses the offline answerer', async () => {
      const listed = await api.get<ServerModels>('/api/models');
      expect(listed.body.models).toEqual(['gpt_3_5_turbo', 'gpt_3_5_turbo_16k', 'gpt_4', 'gpt_4_32k']);
      expect(listed.body.default).toBe('gpt_3_5_turbo');
      expect(listed.body.answerer).toMatch(/^openai:/);

      const created = await api.post<{ modelName: string }>('/api/agents', { name: 'g', description: '', modelName: 'gpt_4' });
      expect(created.body.modelName).toBe('gpt_4');
      const refused = await api.post<ErrorBody>('/api/agents', { name: 'l', description: '', modelName: 'local_extractive' });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('model_not_available');
    });
  });
});
