import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../http/client.js';
import { DOCUMENTS, openFixture, type Fixture } from '../http/fixture.js';
import { OpenApiValidator } from '../http/openapi-validator.js';
import { startServer, type RunningServer } from '../http/servers.js';

interface AgentBody {
  id: string;
  handle: string | null;
  settings: Record<string, unknown>;
}
interface QueryAnswer {
  answer: string;
  sources: unknown[];
}
interface ErrorBody {
  error: { code: string; details: { issues?: { path: string }[] } };
}

describe("the reference's agent fields on create and update", () => {
  let fixture: Fixture;
  let server: RunningServer;
  let api: ApiClient;
  let datastoreId: string;

  beforeAll(async () => {
    fixture = await openFixture({ openai: { reply: () => 'An answer.' } });
    server = await startServer('node:http', fixture.handler);
    api = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), fixture.alice);
    datastoreId = (await api.post<{ id: string }>('/api/datastores', { name: 'Settings' })).body.id;
    await api.post(`/api/datastores/upsert/${datastoreId}`, { documents: DOCUMENTS });
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  it('accepts and stores them; PATCH with includeSources and restrictKnowledge is no longer a 400', async () => {
    const created = await api.post<AgentBody>('/api/agents', {
      name: 'Support',
      description: 'd',
      tools: [{ type: 'datastore', datastoreId }],
      handle: 'support-bot',
      useLanguageDetection: true,
      iconUrl: 'https://example.com/icon.png',
      interfaceConfig: { theme: 'dark' },
      prompt: 'old prompt',
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      handle: 'support-bot',
      settings: {
        useLanguageDetection: true,
        iconUrl: 'https://example.com/icon.png',
        interfaceConfig: { theme: 'dark' },
        prompt: 'old prompt',
      },
    });
    const patched = await api.patch<AgentBody>(`/api/agents/${created.body.id}`, {
      description: 'd',
      includeSources: false,
      restrictKnowledge: true,
      useMarkdown: true,
    });
    expect(patched.status).toBe(200);
    expect(patched.body.settings).toMatchObject({
      includeSources: false,
      restrictKnowledge: true,
      useMarkdown: true,
      useLanguageDetection: true,
    });
    const byHandle = await api.get<AgentBody>('/api/agents/@support-bot');
    expect(byHandle.body.id).toBe(created.body.id);
    expect(byHandle.body.settings).toEqual(patched.body.settings);
    const viaHandle = await api.post<QueryAnswer>('/api/agents/@support-bot/query', { query: 'What causes tides?' });
    expect(viaHandle.status).toBe(200);
    expect(viaHandle.body.sources).toEqual([]);
  });

  it('includeSources false answers without sources; restrictKnowledge and useMarkdown instruct the model unless turned off', async () => {
    const agent = (await api.post<AgentBody>('/api/agents', { name: 'Q', description: 'd', tools: [{ type: 'datastore', datastoreId }] }))
      .body;
    const withSources = await api.post<QueryAnswer>(`/api/agents/${agent.id}/query`, { query: 'What causes tides?' });
    expect(withSources.body.sources.length).toBeGreaterThan(0);
    // On by default, as in the reference.
    const defaultSystem = fixture.openai.chatRequests().at(-1)!.messages[0]!.content!;
    expect(defaultSystem).toContain('Answer only from the context');
    expect(defaultSystem).toContain('Markdown');
    await api.patch(`/api/agents/${agent.id}`, { description: 'd', includeSources: false, restrictKnowledge: false, useMarkdown: false });
    const without = await api.post<QueryAnswer>(`/api/agents/${agent.id}/query`, { query: 'What causes tides?' });
    expect(without.body.sources).toEqual([]);
    const system = fixture.openai.chatRequests().at(-1)!.messages[0]!.content!;
    expect(defaultSystem.startsWith(system)).toBe(true);
    expect(system).not.toContain('Answer only from the context');
    expect(system).not.toContain('Markdown');
  });

  it('a handle is unique and validated; an unknown handle is a 404', async () => {
    const taken = await api.post<ErrorBody>('/api/agents', { name: 'B', description: 'd', handle: 'support-bot' });
    expect(taken.status).toBe(409);
    const bad = await api.post<ErrorBody>('/api/agents', { name: 'B', description: 'd', handle: 'Not A Handle' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues?.map((issue) => issue.path)).toEqual(['handle']);
    expect((await api.get('/api/agents/@nobody-here')).status).toBe(404);
    // Another owner's agent answers like a missing one.
    expect((await api.get('/api/agents/@support-bot', { key: fixture.bob })).status).toBe(404);
  });
});
