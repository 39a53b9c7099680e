import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type ApiResponse } from './client.js';
import { DOCUMENTS, openFixture, type Fixture } from './fixture.js';
import { OpenApiValidator } from './openapi-validator.js';
import { startServer, type RunningServer } from './servers.js';

interface Message {
  id: string;
  conversationId: string;
  from: 'human' | 'agent';
  text: string;
  sources: { datasource_name: string }[];
  createdAt: string;
  eval: 'good' | 'bad' | null;
  evalComment: string | null;
}
interface ConversationRead {
  id: string;
  agentId: string;
  visitorId: string;
  channel: string | null;
  messages: Message[];
  nextCursor: string | null;
  status: string;
  isAiEnabled: boolean;
}
interface Summary {
  id: string;
  visitorId: string;
  channel: string | null;
  messageCount: number;
  feedback: { good: number; bad: number };
  preview: string;
  updatedAt: string;
}
interface Page {
  conversations: Summary[];
  nextCursor: string | null;
}
interface Answer {
  conversationId: string;
  visitorId: string;
  messageId: string;
  answer: string;
}

/** An error as a client sees it, with the probed id blanked: an unknown id and a refused one must read the same. */
const shape = (response: ApiResponse, id: string) => `${response.status} ${JSON.stringify(response.body).split(id).join('<id>')}`;

describe('conversation routes: read, list, delete, feedback', () => {
  let fixture: Fixture;
  let server: RunningServer;
  let owner: ApiClient;
  let stranger: ApiClient;
  let visitor: ApiClient;
  let publicAgent: string;
  let privateAgent: string;

  beforeAll(async () => {
    fixture = await openFixture({ openai: { reply: (body) => `Echo: ${(body.messages.at(-1)?.content ?? '').slice(-40)}` } });
    server = await startServer('node:http', fixture.handler);
    const validator = new OpenApiValidator(fixture.handler.openapi());
    owner = new ApiClient(server.origin, validator, fixture.alice);
    stranger = new ApiClient(server.origin, validator, fixture.bob);
    visitor = new ApiClient(server.origin, validator, null);
    const datastore = (await owner.post<{ id: string }>('/api/datastores', { name: 'Facts' })).body.id;
    expect((await owner.post(`/api/datastores/upsert/${datastore}`, { documents: DOCUMENTS })).status).toBe(200);
    const tools = [{ type: 'datastore', datastoreId: datastore }];
    publicAgent = (await owner.post<{ id: string }>('/api/agents', { name: 'Public', description: 'd', visibility: 'public', tools })).body
      .id;
    privateAgent = (await owner.post<{ id: string }>('/api/agents', { name: 'Private', description: 'd', tools })).body.id;
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  const ask = async (client: ApiClient, agentId: string, body: Record<string, unknown>) => {
    const response = await client.post<Answer>(`/api/agents/${agentId}/query`, body);
    expect(response.status).toBe(200);
    return response.body;
  };
  /** A visitor's conversation of two turns on the public agent. */
  const visitorConversation = async (channel = 'website') => {
    const first = await ask(visitor, publicAgent, { query: 'Why do tides happen?', channel });
    const second = await ask(visitor, publicAgent, {
      query: 'And volcanoes?',
      conversationId: first.conversationId,
      visitorId: first.visitorId,
      channel,
    });
    expect(second.conversationId).toBe(first.conversationId);
    return { ...first, lastMessageId: second.messageId };
  };

  it("the owner reads a conversation in the reference's shape, newest first, and pages through its messages", async () => {
    const { conversationId, visitorId, messageId, lastMessageId } = await visitorConversation();
    const read = await owner.get<ConversationRead>(`/api/conversations/${conversationId}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: conversationId,
      agentId: publicAgent,
      visitorId,
      channel: 'website',
      status: 'UNRESOLVED',
      isAiEnabled: true,
    });
    expect(read.body.messages.map((message) => [message.from, message.text.startsWith('Echo') ? 'Echo' : message.text])).toEqual([
      ['agent', 'Echo'],
      ['human', 'And volcanoes?'],
      ['agent', 'Echo'],
      ['human', 'Why do tides happen?'],
    ]);
    expect(read.body.messages[0]!.id).toBe(lastMessageId);
    expect(read.body.messages[2]!.id).toBe(messageId);
    expect(read.body.messages[0]!.sources.length).toBeGreaterThan(0);
    expect(read.body.messages[1]!.sources).toEqual([]);
    expect(read.body.messages.every((message) => message.conversationId === conversationId && message.eval === null)).toBe(true);
    expect(read.body.nextCursor).toBeNull();

    // Pages of two, the next one after the last message id (the reference client's cursor).
    const first = await owner.get<ConversationRead>(`/api/conversations/${conversationId}?limit=2`);
    expect(first.body.messages.map((message) => message.id)).toEqual(read.body.messages.slice(0, 2).map((message) => message.id));
    expect(first.body.nextCursor).toBe(read.body.messages[1]!.id);
    const second = await owner.get<ConversationRead>(`/api/conversations/${conversationId}?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.messages.map((message) => message.id)).toEqual(read.body.messages.slice(2).map((message) => message.id));
    expect(second.body.nextCursor).toBeNull();
    // The reference client's first poll sends an empty cursor.
    expect((await owner.get<ConversationRead>(`/api/conversations/${conversationId}?cursor=`)).body.messages).toHaveLength(4);
    expect((await owner.get(`/api/conversations/${conversationId}?limit=0`)).status).toBe(400);
  });

  it('a visitor reads only its own conversation of a public agent, and only with its visitorId; anything else is an unknown id', async () => {
    const mine = await visitorConversation();
    const theirs = await visitorConversation();
    const unknown = randomUUID();
    // Without a key, whatever may not be read answers like an unknown id: a 401 asking for a key.
    const control = await visitor.get(`/api/conversations/${unknown}?visitorId=${mine.visitorId}`);
    expect(control.status).toBe(401);
    const expectUnknown = async (response: ApiResponse, id: string) => {
      expect(response.status).toBe(401);
      expect(shape(response, id)).toBe(shape(control, unknown));
      expect(response.text).not.toContain('tides');
    };

    const own = await visitor.get<ConversationRead>(`/api/conversations/${mine.conversationId}?visitorId=${mine.visitorId}`);
    expect(own.status).toBe(200);
    expect(own.body.messages).toHaveLength(4);
    expect(own.body.messages.at(-1)!.text).toBe('Why do tides happen?');

    await expectUnknown(await visitor.get(`/api/conversations/${mine.conversationId}`), mine.conversationId);
    await expectUnknown(await visitor.get(`/api/conversations/${mine.conversationId}?visitorId=someone-else`), mine.conversationId);
    await expectUnknown(
      await visitor.get(`/api/conversations/${theirs.conversationId}?visitorId=${mine.visitorId}`),
      theirs.conversationId,
    );
    // Another owner's key is no owner here: without the visitor id it gets the 404 of an unknown id.
    const strangerControl = await stranger.get(`/api/conversations/${unknown}`);
    expect(strangerControl.status).toBe(404);
    expect(shape(await stranger.get(`/api/conversations/${mine.conversationId}`), mine.conversationId)).toBe(
      shape(strangerControl, unknown),
    );

    // A private agent's conversation is not readable by a visitor even with the right visitor id.
    const owned = await ask(owner, privateAgent, { query: 'Why does bread rise?', visitorId: 'private-visitor' });
    await expectUnknown(await visitor.get(`/api/conversations/${owned.conversationId}?visitorId=private-visitor`), owned.conversationId);
    expect((await owner.get(`/api/conversations/${owned.conversationId}`)).status).toBe(200);
  });

  it("with the agent's allowConversationReadById, the id alone reads a public agent's conversation, and nothing more", async () => {
    const setReadById = async (agentId: string, value: boolean) =>
      expect((await owner.patch(`/api/agents/${agentId}`, { description: 'd', allowConversationReadById: value })).status).toBe(200);
    const mine = await visitorConversation();
    const owned = await ask(owner, privateAgent, { query: 'Why does bread rise?', visitorId: 'private-visitor' });
    const unknown = randomUUID();
    const control = await visitor.get(`/api/conversations/${unknown}`);
    expect((await visitor.get(`/api/conversations/${mine.conversationId}`)).status).toBe(401);

    await setReadById(publicAgent, true);
    await setReadById(privateAgent, true);
    try {
      const bare = await visitor.get<ConversationRead>(`/api/conversations/${mine.conversationId}`);
      expect(bare.status).toBe(200);
      expect(bare.body).toMatchObject({ id: mine.conversationId, visitorId: mine.visitorId });
      expect(bare.body.messages).toHaveLength(4);
      // Feedback needs no visitor id either, as the read does not.
      expect((await visitor.post(`/api/messages/${mine.messageId}/feedback`, { eval: 'good' })).status).toBe(200);
      // A visitor id that is given must be the conversation's.
      expect(shape(await visitor.get(`/api/conversations/${mine.conversationId}?visitorId=someone-else`), mine.conversationId)).toBe(
        shape(control, unknown),
      );
      // A private agent's conversation stays closed whatever its setting says; unknown ids stay unknown.
      expect(shape(await visitor.get(`/api/conversations/${owned.conversationId}`), owned.conversationId)).toBe(shape(control, unknown));
      expect((await visitor.get(`/api/conversations/${unknown}`)).status).toBe(401);
      // Another owner's key reads it as a visitor would, never as the owner.
      expect((await stranger.get(`/api/conversations/${mine.conversationId}`)).status).toBe(200);
      expect((await stranger.delete(`/api/conversations/${mine.conversationId}`)).status).toBe(404);
    } finally {
      await setReadById(publicAgent, false);
      await setReadById(privateAgent, false);
    }
    expect(shape(await visitor.get(`/api/conversations/${mine.conversationId}`), mine.conversationId)).toBe(shape(control, unknown));
  });

  it("lists an agent's conversations newest first, a page at a time, filtered by visitor, channel, dates and feedback", async () => {
    const agent = (
      await owner.post<{ id: string }>('/api/agents', {
        name: 'Listed',
        description: 'd',
        visibility: 'public',
        tools: (await owner.get<{ datastoreIds: string[] }>(`/api/agents/${publicAgent}`)).body.datastoreIds.map((datastoreId) => ({
          type: 'datastore',
          datastoreId,
        })),
      })
    ).body.id;
    const started: Answer[] = [];
    for (const [index, channel] of ['website', 'dashboard', 'website', 'api', 'website'].entries()) {
      started.push(
        await ask(index % 2 === 0 ? visitor : owner, agent, {
          query: `Question ${index} about tides`,
          channel,
          visitorId: `v-${index % 2}`,
        }),
      );
    }
    const newestFirst = started.map((answer) => answer.conversationId).reverse();
    const list = async (query: string) => {
      const response = await owner.get<Page>(`/api/agents/${agent}/conversations${query}`);
      expect(response.status).toBe(200);
      return response.body;
    };
    const all = await list('');
    expect(all.conversations.map((conversation) => conversation.id)).toEqual(newestFirst);
    expect(all.nextCursor).toBeNull();
    expect(all.conversations.at(-1)).toMatchObject({
      messageCount: 2,
      preview: 'Question 0 about tides',
      channel: 'website',
      feedback: { good: 0, bad: 0 },
    });

    // Paging: two at a time, every conversation once, in order.
    const paged: string[] = [];
    let cursor: string | null = '';
    do {
      const page: Page = await list(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.conversations.length).toBeLessThanOrEqual(2);
      paged.push(...page.conversations.map((conversation) => conversation.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(paged).toEqual(newestFirst);

    const ids = async (query: string) => (await list(query)).conversations.map((conversation) => conversation.id);
    expect(await ids('?visitorId=v-1')).toEqual([started[3]!.conversationId, started[1]!.conversationId]);
    expect(await ids('?channel=website')).toEqual([started[4]!.conversationId, started[2]!.conversationId, started[0]!.conversationId]);
    expect(await ids('?channel=website&visitorId=v-1')).toEqual([]);
    const middle = all.conversations[2]!.updatedAt;
    expect(await ids(`?to=${encodeURIComponent(middle)}`)).toEqual(newestFirst.slice(2));
    expect(await ids(`?from=${encodeURIComponent(middle)}`)).toEqual(newestFirst.slice(0, 3));
    expect(await ids('?to=2000-01-01')).toEqual([]);
    expect(await ids(`?from=${middle.slice(0, 10)}`)).toEqual(newestFirst);

    // Feedback: one answer marked bad, one good.
    expect((await owner.post(`/api/messages/${started[1]!.messageId}/feedback`, { eval: 'bad', comment: 'Wrong' })).status).toBe(200);
    expect((await owner.post(`/api/messages/${started[3]!.messageId}/feedback`, { eval: 'good' })).status).toBe(200);
    expect(await ids('?feedback=bad')).toEqual([started[1]!.conversationId]);
    expect(await ids('?feedback=good')).toEqual([started[3]!.conversationId]);
    expect(await ids('?feedback=any')).toEqual([started[3]!.conversationId, started[1]!.conversationId]);
    expect(await ids('?feedback=none')).toEqual([started[4]!.conversationId, started[2]!.conversationId, started[0]!.conversationId]);
    expect((await list('?feedback=bad')).conversations[0]!.feedback).toEqual({ good: 0, bad: 1 });

    // Bad input names the field.
    for (const [query, field] of [
      ['?limit=500', 'limit'],
      ['?feedback=meh', 'feedback'],
      ['?from=yesterday', 'from'],
      ['?cursor=not-a-cursor', 'cursor'],
      ['?limit=1&limit=2', 'limit'],
    ] as const) {
      const response = await owner.get<{ error: { code: string; details: { issues: { path: string }[] } } }>(
        `/api/agents/${agent}/conversations${query}`,
      );
      expect(response.status, query).toBe(400);
      expect(response.body.error.details.issues.map((issue) => issue.path)).toContain(field);
    }
    // Only the owner lists: another owner's key gets the 404 of an unknown agent, a visitor a 401.
    const unknownAgent = randomUUID();
    const refused = await stranger.get(`/api/agents/${agent}/conversations`);
    expect(shape(refused, agent)).toBe(shape(await stranger.get(`/api/agents/${unknownAgent}/conversations`), unknownAgent));
    expect(refused.status).toBe(404);
    expect((await visitor.get(`/api/agents/${agent}/conversations`)).status).toBe(401);
    const queryOnly = (await fixture.ragdesk.keys.create({ ownerId: 'alice', name: 'query only', scopes: ['query'] })).key;
    expect((await owner.get(`/api/agents/${agent}/conversations`, { key: queryOnly })).status).toBe(403);
  });

  it('deletes a conversation for its owner only; it is gone, and continuing it starts a new one', async () => {
    const { conversationId, visitorId } = await visitorConversation();
    const unknown = randomUUID();
    const control = await stranger.delete(`/api/conversations/${unknown}`);
    const refused = await stranger.delete(`/api/conversations/${conversationId}`);
    expect(refused.status).toBe(404);
    expect(shape(refused, conversationId)).toBe(shape(control, unknown));
    expect((await visitor.delete(`/api/conversations/${conversationId}`)).status).toBe(401);
    expect((await owner.get(`/api/conversations/${conversationId}`)).status).toBe(200);

    const deleted = await owner.delete<{ id: string; visitorId: string }>(`/api/conversations/${conversationId}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: conversationId, visitorId });
    expect((await owner.get(`/api/conversations/${conversationId}`)).status).toBe(404);
    expect((await owner.delete(`/api/conversations/${conversationId}`)).status).toBe(404);
    const listed = await owner.get<Page>(`/api/agents/${publicAgent}/conversations?visitorId=${visitorId}`);
    expect(listed.body.conversations).toEqual([]);
    const next = await ask(visitor, publicAgent, { query: 'Hello again', conversationId, visitorId });
    expect(next.conversationId).not.toBe(conversationId);
  });

  it('takes feedback on answers from whoever may read the conversation, and the reference eval-answer form', async () => {
    const { conversationId, visitorId, messageId } = await visitorConversation();
    const read = async () => (await owner.get<ConversationRead>(`/api/conversations/${conversationId}`)).body.messages;
    const marked = await visitor.post<Message>(`/api/messages/${messageId}/feedback`, {
      eval: 'bad',
      comment: '  Not what I asked  ',
      visitorId,
    });
    expect(marked.status).toBe(200);
    expect(marked.body).toMatchObject({ id: messageId, from: 'agent', eval: 'bad', evalComment: 'Not what I asked' });
    expect((await read()).find((message) => message.id === messageId)).toMatchObject({ eval: 'bad', evalComment: 'Not what I asked' });

    // Without the visitor id, with another one, or from another owner: the answer to an unknown message, nothing changed.
    const unknown = randomUUID();
    const control = await visitor.post(`/api/messages/${unknown}/feedback`, { eval: 'good', visitorId });
    expect(control.status).toBe(401);
    for (const [client, body] of [
      [visitor, { eval: 'good' }],
      [visitor, { eval: 'good', visitorId: 'someone-else' }],
      [stranger, { eval: 'good' }],
    ] as const) {
      const response = await client.post(`/api/messages/${messageId}/feedback`, body);
      expect(response.status).toBe(client === stranger ? 404 : 401);
      expect(shape(response, messageId)).toBe(
        shape(client === stranger ? await stranger.post(`/api/messages/${unknown}/feedback`, body) : control, unknown),
      );
    }
    expect((await read()).find((message) => message.id === messageId)?.eval).toBe('bad');

    // The reference client's call: { messageId, eval, visitorId } to /api/conversations/eval-answer.
    const alias = await visitor.post<Message>('/api/conversations/eval-answer', { messageId, eval: 'good', visitorId });
    expect(alias.status).toBe(200);
    expect(alias.body).toMatchObject({ id: messageId, eval: 'good', evalComment: null });
    // The owner may mark and clear any answer of its agents.
    expect((await owner.post<Message>(`/api/messages/${messageId}/feedback`, { eval: null })).body.eval).toBeNull();
    // A question takes no feedback; a bad value is named.
    const question = (await read()).find((message) => message.from === 'human')!;
    const onQuestion = await owner.post<{ error: { details: { issues: { path: string }[] } } }>(`/api/messages/${question.id}/feedback`, {
      eval: 'good',
    });
    expect(onQuestion.status).toBe(400);
    expect(onQuestion.body.error.details.issues[0]!.path).toBe('messageId');
    const badValue = await owner.post<{ error: { details: { issues: { path: string }[] } } }>(`/api/messages/${messageId}/feedback`, {
      eval: 'great',
    });
    expect(badValue.status).toBe(400);
    expect(badValue.body.error.details.issues[0]!.path).toBe('eval');
  });
});
