/**
 * Names callers choose are per owner, over HTTP through the real handler: another owner's use of
 * an agent handle or a conversation id neither blocks nor reveals anything (same status and body
 * as a free one), each owner's `@handle` reaches its own agent, a visitor's `@handle` reaches the
 * one public agent with it, and a conversation id names a conversation of the queried agent only.
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
      // The system prompt's first line is the agent's own prompt (answer settings append theirs below).
      return String(fixture.openai.chatRequests()[0]!.messages[0]!.content).split('\n')[0];
    };
    expect(await asked(null)).toBe('ALICE-FAQ');
    expect(await asked(fixture.alice)).toBe('ALICE-FAQ');
    // Bob's key names Bob's own `faq` first.
    expect(await asked(fixture.bob)).toBe('BOB-FAQ');
  });
});

describe('per-agent conversation ids', () => {
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

  interface Answer {
    answer: string;
    conversationId: string;
    visitorId: string;
  }
  const agentOf = async (key: string) =>
    (await api.post<{ id: string }>('/api/agents', { name: 'Helper', description: 'd' }, { key })).body.id;
  const ask = (agentId: string, key: string, query: string, conversationId: string) =>
    api.post<Answer>(`/api/agents/${agentId}/query`, { query, conversationId }, { key });
  const lastSent = () => JSON.stringify(fixture.openai.chatRequests().at(-1)!.messages);

  it("another owner's conversation id is free: answered under it like an unused id, neither side sees the other's turns", async () => {
    const alices = await agentOf(fixture.alice);
    const bobs = await agentOf(fixture.bob);
    const first = await ask(alices, fixture.alice, 'ALICE-SECRET-QUESTION', 'chosen-conversation');
    expect(first.body.conversationId).toBe('chosen-conversation');

    const taken = await ask(bobs, fixture.bob, 'bob asks', 'chosen-conversation');
    expect(lastSent()).not.toContain('ALICE-SECRET-QUESTION');
    const unused = await ask(bobs, fixture.bob, 'bob asks', 'unused-conversation');
    const shape = (response: typeof taken, id: string) => ({
      status: response.status,
      keys: Object.keys(response.body).sort(),
      usesTheId: response.body.conversationId === id,
      answer: response.body.answer,
    });
    expect(shape(taken, 'chosen-conversation')).toEqual(shape(unused, 'unused-conversation'));
    expect(shape(taken, 'chosen-conversation')).toMatchObject({ status: 200, usesTheId: true });

    // Each continues its own conversation under the shared id.
    await ask(bobs, fixture.bob, 'bob again', 'chosen-conversation');
    expect(lastSent()).toContain('bob asks');
    expect(lastSent()).not.toContain('ALICE-SECRET-QUESTION');
    await ask(alices, fixture.alice, 'alice again', 'chosen-conversation');
    expect(lastSent()).toContain('ALICE-SECRET-QUESTION');
    expect(lastSent()).not.toContain('bob');
  });

  interface Read {
    id: string;
    agentId: string;
    messages: { text: string }[];
  }
  const read = (id: string, key: string | null, query = '') => api.get<Read & ErrorBody>(`/api/conversations/${id}${query}`, { key });
  /** Status and body with the id in it blanked, to compare two ids' answers. */
  const blanked = (response: { status: number; body: unknown }, id: string) => ({
    status: response.status,
    body: JSON.parse(JSON.stringify(response.body).replaceAll(id, '<id>')) as unknown,
  });

  it("reading and deleting by id reach the caller's own conversation; another owner's answers like an unknown id", async () => {
    const alices = await agentOf(fixture.alice);
    const bobs = await agentOf(fixture.bob);
    await ask(alices, fixture.alice, 'ALICE-READ-SECRET', 'read-shared');
    await ask(bobs, fixture.bob, 'bob reads', 'read-shared');
    const carol = (await fixture.ragdesk.keys.create({ ownerId: 'carol', name: 'carol', scopes: ['admin'] })).key;

    const aliceRead = await read('read-shared', fixture.alice);
    expect([aliceRead.status, aliceRead.body.agentId]).toEqual([200, alices]);
    expect(JSON.stringify(aliceRead.body)).not.toContain('bob reads');
    const bobRead = await read('read-shared', fixture.bob);
    expect([bobRead.status, bobRead.body.agentId]).toEqual([200, bobs]);
    expect(JSON.stringify(bobRead.body)).not.toContain('ALICE-READ-SECRET');

    // Held by two other owners, or by nobody: the same 404 (and 401 without a key).
    for (const key of [carol, null]) {
      expect(blanked(await read('read-shared', key), 'read-shared')).toEqual(blanked(await read('read-unused', key), 'read-unused'));
    }
    // Naming another owner's agent does not reach its conversation either.
    const named = await read('read-shared', fixture.alice, `?agentId=${bobs}`);
    expect(blanked(named, 'read-shared')).toEqual(blanked(await read('read-unused', fixture.alice, `?agentId=${bobs}`), 'read-unused'));
    expect(named.status).toBe(404);
    const deleteOthers = await api.delete<ErrorBody>('/api/conversations/read-shared', { key: carol });
    const deleteUnused = await api.delete<ErrorBody>('/api/conversations/read-unused', { key: carol });
    expect(blanked(deleteOthers, 'read-shared')).toEqual(blanked(deleteUnused, 'read-unused'));
    expect(deleteOthers.status).toBe(404);

    // Bob deletes his; Alice's is untouched.
    expect((await api.delete('/api/conversations/read-shared', { key: fixture.bob })).status).toBe(200);
    expect((await read('read-shared', fixture.bob)).status).toBe(404);
    const still = await read('read-shared', fixture.alice);
    expect(still.status).toBe(200);
    expect(JSON.stringify(still.body)).toContain('ALICE-READ-SECRET');
  });

  it('two of the caller’s conversations with one id: 409 naming agentId, and agentId picks one', async () => {
    const first = await agentOf(fixture.alice);
    const second = await agentOf(fixture.alice);
    await ask(first, fixture.alice, 'FIRST-AGENT-QUESTION', 'twice');
    await ask(second, fixture.alice, 'SECOND-AGENT-QUESTION', 'twice');

    const ambiguous = await read('twice', fixture.alice);
    expect(ambiguous.status).toBe(409);
    expect(ambiguous.body.error.details.issues?.map((issue) => issue.path)).toEqual(['agentId']);
    const picked = await read('twice', fixture.alice, `?agentId=${second}`);
    expect([picked.status, picked.body.agentId]).toEqual([200, second]);
    expect(JSON.stringify(picked.body)).toContain('SECOND-AGENT-QUESTION');
    expect(JSON.stringify(picked.body)).not.toContain('FIRST-AGENT-QUESTION');

    const refused = await api.delete<ErrorBody>('/api/conversations/twice', { key: fixture.alice });
    expect(refused.status).toBe(409);
    expect(refused.body.error.details.issues?.map((issue) => issue.path)).toEqual(['agentId']);
    expect((await api.delete<Read>(`/api/conversations/twice?agentId=${first}`, { key: fixture.alice })).body.agentId).toBe(first);
    // One left: the id alone names it again.
    const left = await read('twice', fixture.alice);
    expect([left.status, left.body.agentId]).toEqual([200, second]);
  });

  it('a visitor holding two conversations with one id gets the 409 too, and reads each with agentId', async () => {
    const publicAgent = async () =>
      (await api.post<{ id: string }>('/api/agents', { name: 'Public', description: 'd', visibility: 'public' }, { key: fixture.alice }))
        .body.id;
    const first = await publicAgent();
    const second = await publicAgent();
    for (const agentId of [first, second]) {
      const started = await api.post<Answer>(
        `/api/agents/${agentId}/query`,
        { query: `question to ${agentId}`, conversationId: 'visited', visitorId: 'visitor-two' },
        { key: fixture.alice },
      );
      expect(started.body.conversationId).toBe('visited');
    }
    const ambiguous = await read('visited', null, '?visitorId=visitor-two');
    expect(ambiguous.status).toBe(409);
    expect(ambiguous.body.error.details.issues?.map((issue) => issue.path)).toEqual(['agentId']);
    const picked = await read('visited', null, `?visitorId=visitor-two&agentId=${first}`);
    expect([picked.status, picked.body.agentId]).toEqual([200, first]);
    // Another visitor id reads neither, as for an unknown id.
    expect(blanked(await read('visited', null, '?visitorId=someone-else'), 'visited')).toEqual(
      blanked(await read('unvisited', null, '?visitorId=someone-else'), 'unvisited'),
    );
  });
});
