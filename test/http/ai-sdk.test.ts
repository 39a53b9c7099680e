import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from './client.js';
import { DOCUMENTS, openFixture, type Fixture } from './fixture.js';
import { OpenApiValidator } from './openapi-validator.js';
import { startServer, type RunningServer } from './servers.js';

interface Metadata {
  conversationId: string;
  usage: { promptTokens: number; completionTokens: number };
  warnings: string[];
}

/**
 * The route as `useChat` reaches it: the AI SDK's own DefaultChatTransport posts the UI messages,
 * and its own parser (readUIMessageStream) builds the assistant message from the stream.
 */
describe("the AI SDK route, driven by the ai package's transport and stream reader", () => {
  let fixture: Fixture;
  let server: RunningServer;
  let agentId: string;
  let publicId: string;

  beforeAll(async () => {
    fixture = await openFixture({
      openai: { reply: (body) => `Answer to: ${/Question: (.*)/.exec(body.messages.at(-1)?.content ?? '')?.[1]}` },
    });
    server = await startServer('node:http', fixture.handler);
    const api = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), fixture.alice);
    const datastoreId = (await api.post<{ id: string }>('/api/datastores', { name: 'Facts' })).body.id;
    await api.post(`/api/datastores/upsert/${datastoreId}`, { documents: DOCUMENTS });
    const tools = [{ type: 'datastore', datastoreId }];
    agentId = (await api.post<{ id: string }>('/api/agents', { name: 'Facts', description: 'd', tools, systemPrompt: 'Be brief.' })).body
      .id;
    publicId = (await api.post<{ id: string }>('/api/agents', { name: 'Public', description: 'd', tools, visibility: 'public' })).body.id;
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  const userMessage = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });

  async function chat(agent: string, messages: UIMessage[], headers: Record<string, string> = {}) {
    const transport = new DefaultChatTransport<UIMessage<Metadata>>({ api: `${server.origin}/api/agents/${agent}/ai-sdk`, headers });
    const stream = await transport.sendMessages({
      chatId: 'chat-1',
      messages: messages as UIMessage<Metadata>[],
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
    });
    const [forReader, forChunks] = stream.tee();
    const chunks: UIMessageChunk[] = [];
    const collecting = (async () => {
      for await (const chunk of forChunks as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk);
    })();
    let last: UIMessage<Metadata> | undefined;
    for await (const message of readUIMessageStream<UIMessage<Metadata>>({ stream: forReader })) last = message;
    await collecting;
    return { message: last!, chunks };
  }

  it('answers with a text part, source parts and ragdesk metadata; earlier messages are the history', async () => {
    const { message, chunks } = await chat(
      agentId,
      [
        userMessage('m1', 'Hello'),
        { id: 'm2', role: 'assistant', parts: [{ type: 'step-start' }, { type: 'text', text: 'Hi there.' }] },
        userMessage('m3', 'What causes tides?'),
      ],
      { authorization: `Bearer ${fixture.alice}` },
    );
    expect(chunks.map((chunk) => chunk.type).filter((type) => type !== 'text-delta')).toEqual([
      'start',
      'start-step',
      'text-start',
      'text-end',
      'source-document',
      'source-document',
      'source-document',
      'finish-step',
      'finish',
    ]);
    expect(chunks.filter((chunk) => chunk.type === 'text-delta').length).toBeGreaterThan(2);
    expect(message.role).toBe('assistant');
    const text = message.parts.filter((part) => part.type === 'text').map((part) => part.text);
    expect(text).toEqual(['Answer to: What causes tides?']);
    const sources = message.parts.filter((part) => part.type === 'source-document');
    expect(sources[0]).toMatchObject({ title: 'tides.md', filename: 'tides.md', mediaType: expect.any(String) });
    expect((sources[0]!.providerMetadata as { ragdesk: { text: string } }).ragdesk.text).toContain('gravitational pull');
    expect(message.metadata!.usage.completionTokens).toBeGreaterThan(0);
    expect(typeof message.metadata!.conversationId).toBe('string');
    expect(chunks.find((chunk) => chunk.type === 'finish')).toMatchObject({ finishReason: 'stop' });

    const upstream = fixture.openai.chatRequests().at(-1)!;
    expect(upstream.messages.map((entry) => entry.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(upstream.messages.slice(1, 3).map((entry) => entry.content)).toEqual(['Hello', 'Hi there.']);
  });

  it('answers with the protocol header; a public agent without a key, a private one is a 401 the transport throws', async () => {
    const raw = await fetch(`${server.origin}/api/agents/${publicId}/ai-sdk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'c', messages: [userMessage('m1', 'What makes sourdough rise?')], trigger: 'submit-message' }),
    });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(raw.headers.get('content-type')).toBe('text/event-stream');
    const body = await raw.text();
    expect(body.endsWith('data: [DONE]\n\n')).toBe(true);

    const { message } = await chat(publicId, [userMessage('m1', 'Why does a volcano erupt?')]);
    expect(message.parts.find((part) => part.type === 'text')).toMatchObject({ text: 'Answer to: Why does a volcano erupt?' });
    await expect(chat(agentId, [userMessage('m1', 'Tides?')])).rejects.toThrow(/Missing API key/);
  });

  it("a last message that is not the user's is a 400 naming it; a failure mid-answer is an error chunk", async () => {
    const refused = await fetch(`${server.origin}/api/agents/${agentId}/ai-sdk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${fixture.alice}` },
      body: JSON.stringify({ messages: [{ id: 'a', role: 'assistant', parts: [{ type: 'text', text: 'x' }] }] }),
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { details: { issues: { path: string }[] } } }).error.details.issues[0]!.path).toBe(
      'messages[0]',
    );

    fixture.openai.enqueue({ kind: 'stream_error', pieces: 2, message: 'upstream broke' });
    const errors: unknown[] = [];
    const transport = new DefaultChatTransport({
      api: `${server.origin}/api/agents/${agentId}/ai-sdk`,
      headers: { authorization: `Bearer ${fixture.alice}` },
    });
    const stream = await transport.sendMessages({
      chatId: 'c',
      messages: [userMessage('m1', 'What causes tides?')],
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
    });
    for await (const _message of readUIMessageStream({ stream, onError: (error) => errors.push(error) })) void _message;
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toContain('upstream_failed');
  });
});
