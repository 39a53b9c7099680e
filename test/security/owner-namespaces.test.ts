/**
 * Names callers choose are per owner, over HTTP through the real handler: another owner's use of
 * an agent handle neither blocks nor reveals anything (same status and body as a free one), each
 * owner's `@handle` reaches its own agent, and a visitor's `@handle` reaches the one public agent
 * with it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../http/client.js';
import { openFixture, type Fixture } from '../http/fixture.js';
import { OpenApiValidator } from '../http/openapi-validator.js';
import { startServer, type RunningServer } from '../http/servers.js';

interface AgentBody {
  id: string;
  name: string;
  handle: string | null;
  visibility: string;
  systemPrompt: string | null;
}
interface ErrorBody {
  error: { code: string; message: string; details: { issues?: { path: string; message: string }[] } };
}

/** A response with the parts that must differ between two created agents (ids, times) blanked. */
function shape(response: { status: number; body: unknown }, handle: string): unknown {
  const text = JSON.stringify(response.body)
    .replaceAll(handle, '<handle>')
    .replace(/"(id|createdAt|updatedAt)":"[^"]*"/g, '"$1":"<x>"');
  return { status: response.status, body: JSON.parse(text) as unknown };
}

describe('per-owner handles', () => {
  let fixture: Fixture;
  let server: RunningServer;
  let api: ApiClient;

  beforeAll(async () => {
    fixture = await openFixture({ openai: { reply: () => 'An answer.' } });
    server = await startServer('node:http', fixture.handler);
    api = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), null);
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });
  beforeEach(() => fixture.openai.reset());

  const createAgent = (key: string, body: Record<string, unknown>) =>
    api.post<AgentBody & ErrorBody>('/api/agents', { name: 'Helper', description: 'd', ...body }, { key });

  it("another owner's handle is free: the same answer as an unused one, and each owner's @handle is its own agent", async () => {
    const alices = await createAgent(fixture.alice, { handle: 'support', systemPrompt: 'ALICE' });
    expect(alices.status).toBe(200);
    const taken = await createAgent(fixture.bob, { handle: 'support', systemPrompt: 'BOB' });
    const free = await createAgent(fixture.bob, { handle: 'support-free', systemPrompt: 'BOB' });
    expect(shape(taken, 'support')).toEqual(shape(free, 'support-free'));
    expect(taken.status).toBe(200);

    const aliceView = await api.get<AgentBody>('/api/agents/@support', { key: fixture.alice });
    const bobView = await api.get<AgentBody>('/api/agents/@support', { key: fixture.bob });
    expect([aliceView.body.id, aliceView.body.systemPrompt]).toEqual([alices.body.id, 'ALICE']);
    expect([bobView.body.id, bobView.body.systemPrompt]).toEqual([taken.body.id, 'BOB']);

    // Renaming onto a handle only the other owner uses works the same way.
    const renamed = await api.patch<AgentBody>(`/api/agents/${free.body.id}`, { description: 'd', handle: 'sales' }, { key: fixture.bob });
    expect(renamed.status).toBe(200);
    await createAgent(fixture.alice, { handle: 'sales' }).then((response) => expect(response.status).toBe(200));
    // The same owner still cannot have two agents with one handle.
    const twice = await createAgent(fixture.bob, { handle: 'support' });
    expect(twice.status).toBe(409);
    expect(twice.body.error.details.issues?.map((issue) => issue.path)).toEqual(['handle']);
  });

  it("another owner's @handle is never reached: the 404 is the one of a handle nobody uses", async () => {
    await createAgent(fixture.alice, { handle: 'alice-only', systemPrompt: 'ALICE-SECRET' });
    const held = await api.get<ErrorBody>('/api/agents/@alice-only', { key: fixture.bob });
    const unused = await api.get<ErrorBody>('/api/agents/@nobody-uses', { key: fixture.bob });
    expect(held.status).toBe(404);
    expect(shape(held, 'alice-only')).toEqual(shape(unused, 'nobody-uses'));
    // Querying or changing it through the handle is the same as for an unknown one.
    for (const key of [fixture.bob, null]) {
      const query = await api.post<ErrorBody>('/api/agents/@alice-only/query', { query: 'hi' }, { key });
      const unknown = await api.post<ErrorBody>('/api/agents/@nobody-uses/query', { query: 'hi' }, { key });
      expect(shape(query, 'alice-only')).toEqual(shape(unknown, 'nobody-uses'));
    }
    const patch = await api.patch<ErrorBody>('/api/agents/@alice-only', { description: 'x' }, { key: fixture.bob });
    expect(patch.status).toBe(404);
    expect(fixture.openai.chatRequests()).toHaveLength(0);
  });

  it('a public handle is unambiguous: visitors reach the one public agent with it, keys their own agent first', async () => {
    const alices = await createAgent(fixture.alice, { handle: 'faq', visibility: 'public', systemPrompt: 'ALICE-FAQ' });
    const bobs = await createAgent(fixture.bob, { handle: 'faq', systemPrompt: 'BOB-FAQ' });
    expect([alices.status, bobs.status]).toEqual([200, 200]);
    // Bob's agent may not become a second public `faq`: that name is public already.
    const goPublic = await api.patch<ErrorBody>(
      `/api/agents/${bobs.body.id}`,
      { description: 'd', visibility: 'public' },
      { key: fixture.bob },
    );
    expect(goPublic.status).toBe(409);
    expect(goPublic.body.error.details.issues?.map((issue) => issue.path)).toEqual(['handle']);
    const publicTwin = await createAgent(fixture.bob, { handle: 'faq-2', visibility: 'public' });
    const renameOnto = await api.patch<ErrorBody>(
      `/api/agents/${publicTwin.body.id}`,
      { description: 'd', handle: 'faq' },
      { key: fixture.bob },
    );
    expect(renameOnto.status).toBe(409);

    const asked = async (key: string | null) => {
      fixture.openai.reset();
      const response = await api.post('/api/agents/@faq/query', { query: 'hi' }, { key });
      expect(response.status).toBe(200);
      return fixture.openai.chatRequests()[0]!.messages[0]!.content;
    };
    expect(await asked(null)).toBe('ALICE-FAQ');
    expect(await asked(fixture.alice)).toBe('ALICE-FAQ');
    // Bob's key names Bob's own `faq` first.
    expect(await asked(fixture.bob)).toBe('BOB-FAQ');
  });
});
