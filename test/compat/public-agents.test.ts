import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../http/client.js';
import { openFixture, type Fixture } from '../http/fixture.js';
import { OpenApiValidator } from '../http/openapi-validator.js';
import { startServer, type RunningServer } from '../http/servers.js';

type Body = Record<string, unknown> & { error?: { code: string; details: { issues?: { path: string }[] } } };

const INTERFACE = {
  displayName: 'Harbour help',
  primaryColor: '#0b7285',
  initialMessages: ['Ahoy! Ask about tides.', 'Answers cite the harbour guide.'],
  messageTemplates: ['When is high tide?'],
  position: 'left',
  isBgTransparent: true,
  rateLimit: { enabled: true, maxQueries: '20', interval: 60 },
};

describe('agents as the reference widget reads them', () => {
  let fixture: Fixture;
  let server: RunningServer;
  let api: ApiClient;
  let publicId: string;
  let privateId: string;

  beforeAll(async () => {
    fixture = await openFixture();
    server = await startServer('node:http', fixture.handler);
    api = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), fixture.alice);
    const datastoreId = (await api.post<{ id: string }>('/api/datastores', { name: 'Guide' })).body.id;
    const created = await api.post<Body>('/api/agents', {
      name: 'Harbour',
      description: 'Tides and ferries',
      visibility: 'public',
      handle: 'harbour',
      systemPrompt: 'SECRET-SYSTEM-PROMPT',
      userPrompt: 'SECRET-USER-PROMPT {query} {context}',
      iconUrl: 'https://example.com/anchor.png',
      useMarkdown: true,
      interfaceConfig: INTERFACE,
      tools: [{ type: 'datastore', datastoreId }],
    });
    expect(created.status).toBe(200);
    publicId = created.body.id as string;
    privateId = (await api.post<Body>('/api/agents', { name: 'Back office', description: 'd', systemPrompt: 'HIDDEN' })).body.id as string;
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  it('every agent answer carries the settings at the top level, with their values in effect', async () => {
    const agent = (await api.get<Body>(`/api/agents/${publicId}`)).body;
    expect(agent).toMatchObject({
      includeSources: true,
      // Absent settings answer their defaults, the reference's: includeSources, restrictKnowledge, useMarkdown on.
      restrictKnowledge: true,
      useMarkdown: true,
      useLanguageDetection: false,
      iconUrl: 'https://example.com/anchor.png',
      interfaceConfig: INTERFACE,
      settings: { useMarkdown: true, iconUrl: 'https://example.com/anchor.png', interfaceConfig: INTERFACE },
      systemPrompt: 'SECRET-SYSTEM-PROMPT',
    });
    const listed = (await api.get<Body[]>('/api/agents')).body.find((each) => each.id === publicId);
    expect(listed).toMatchObject({ includeSources: true, interfaceConfig: INTERFACE });
    const bare = (await api.get<Body>(`/api/agents/${privateId}`)).body;
    expect(bare).toMatchObject({ includeSources: true, useMarkdown: true, iconUrl: null, interfaceConfig: null });
  });

  it('without a key a public agent answers its public view, by id and by @handle', async () => {
    const byId = await api.get<Body>(`/api/agents/${publicId}`, { key: null });
    const byHandle = await api.get<Body>('/api/agents/@harbour', { key: null });
    expect(byId.status).toBe(200);
    expect(byHandle.body).toEqual(byId.body);
    expect(byId.body).toEqual({
      id: publicId,
      name: 'Harbour',
      description: 'Tides and ferries',
      handle: 'harbour',
      visibility: 'public',
      includeSources: true,
      useMarkdown: true,
      useLanguageDetection: false,
      iconUrl: 'https://example.com/anchor.png',
      interfaceConfig: INTERFACE,
    });
    expect(byId.text).not.toMatch(/SECRET|alice|modelName|temperature|datastore/);
    // Another owner's key sees the same public view, not the agent.
    expect((await api.get<Body>(`/api/agents/${publicId}`, { key: fixture.bob })).body).toEqual(byId.body);
  });

  it("a private or unknown agent answers exactly as before: 401 without a key, 404 with another owner's", async () => {
    const privateAnswer = await api.get<Body>(`/api/agents/${privateId}`, { key: null });
    const unknownAnswer = await api.get<Body>('/api/agents/no-such-agent', { key: null });
    const unknownHandle = await api.get<Body>('/api/agents/@nobody', { key: null });
    const listWithoutKey = await api.get<Body>('/api/agents', { key: null });
    expect(privateAnswer.status).toBe(401);
    for (const other of [unknownAnswer, unknownHandle, listWithoutKey]) {
      expect(other.status).toBe(401);
      expect(other.body).toEqual(privateAnswer.body);
    }
    const privateForBob = await api.get<Body>(`/api/agents/${privateId}`, { key: fixture.bob });
    const unknownForBob = await api.get<Body>('/api/agents/no-such-agent', { key: fixture.bob });
    expect(privateForBob.status).toBe(404);
    expect(unknownForBob.status).toBe(404);
    expect(JSON.stringify(privateForBob.body).replaceAll(privateId, 'ID')).toBe(
      JSON.stringify(unknownForBob.body).replaceAll('no-such-agent', 'ID'),
    );
  });

  it('the owner with a key lacking `read` gets the public view of a public agent and a 403 for a private one', async () => {
    const queryOnly = (await fixture.ragdesk.keys.create({ ownerId: 'alice', name: 'widget', scopes: ['query'] })).key;
    expect((await api.get<Body>(`/api/agents/${publicId}`, { key: queryOnly })).body).not.toHaveProperty('systemPrompt');
    expect((await api.get<Body>(`/api/agents/${privateId}`, { key: queryOnly })).status).toBe(403);
  });

  it('interfaceConfig is checked field by field', async () => {
    const bad = async (interfaceConfig: unknown) =>
      (await api.patch<Body>(`/api/agents/${publicId}`, { description: 'd', interfaceConfig })).body.error?.details.issues?.map(
        (issue) => issue.path,
      );
    expect(await bad({ position: 'top' })).toEqual(['interfaceConfig.position']);
    expect(await bad({ primaryColor: 'red;background:url(x)' })).toEqual(['interfaceConfig.primaryColor']);
    expect(await bad({ initialMessages: 'hello' })).toEqual(['interfaceConfig.initialMessages']);
    expect(await bad({ dispalyName: 'typo' })).toEqual(['interfaceConfig']);
    for (const colour of ['#fff', '#0b7285cc', 'rgb(10, 20, 30)', 'hsl(200 50% 40%)', 'teal']) {
      expect(
        (await api.patch<Body>(`/api/agents/${publicId}`, { description: 'd', interfaceConfig: { ...INTERFACE, primaryColor: colour } }))
          .status,
      ).toBe(200);
    }
    await api.patch(`/api/agents/${publicId}`, { description: 'Tides and ferries', interfaceConfig: INTERFACE });
  });

  it('PATCH takes the body its own GET returned: the edit applies, read-only fields are named in warnings', async () => {
    const current = (await api.get<Body>(`/api/agents/${publicId}`)).body;
    const patched = await api.patch<Body>(`/api/agents/${publicId}`, { ...current, name: 'Harbour master', includeSources: false });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'Harbour master',
      includeSources: false,
      settings: { includeSources: false },
      handle: 'harbour',
    });
    expect(patched.body.warnings).toEqual(['read-only fields ignored: id, ownerId, datastoreIds, settings, createdAt, updatedAt']);
    // Sending the PATCH answer back works too (its warnings are read-only as well).
    const again = await api.patch<Body>(`/api/agents/${publicId}`, { ...patched.body, includeSources: true });
    expect(again.status).toBe(200);
    expect(again.body.warnings).toEqual(['read-only fields ignored: id, ownerId, datastoreIds, settings, createdAt, updatedAt, warnings']);
    // A body of another agent is not applied here.
    const other = (await api.get<Body>(`/api/agents/${privateId}`)).body;
    const wrong = await api.patch<Body>(`/api/agents/${publicId}`, other);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error?.details.issues).toEqual([expect.objectContaining({ path: 'id' })]);
    expect((await api.get<Body>(`/api/agents/${publicId}`)).body.name).toBe('Harbour master');
  });
});
