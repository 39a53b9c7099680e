import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../adapters/http/index.js';
import { localAnswerer, localEmbeddings } from '../../adapters/local/index.js';
import { exactIndex, memoryStores } from '../../adapters/memory/index.js';
import { createRagdesk, type Ragdesk } from '../../src/index.js';
import { ApiClient } from './client.js';
import { DOCUMENTS, openFixture, type Fixture } from './fixture.js';
import { OpenApiValidator } from './openapi-validator.js';
import { startServer, type RunningServer } from './servers.js';

/** What ragdesk adds to a completion (the documented extra field). */
interface RagdeskExtra {
  sources: { datasource_name: string }[];
  conversationId: string;
  messageId: string;
  model: string;
  warnings: string[];
}
type WithExtra<T> = T & { ragdesk: RagdeskExtra };

describe('the OpenAI-compatible routes, driven by the openai client', () => {
  let fixture: Fixture;
  let server: RunningServer;
  let api: ApiClient;
  let agentId: string;
  let publicId: string;
  let openPublicId: string;
  let bobAgentId: string;
  let validator: OpenApiValidator;
  /** Every JSON answer the openai client gets is checked against the OpenAPI document first. */
  const validatingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    const type = response.headers.get('content-type');
    if (type?.startsWith('application/json')) {
      const url = new URL(input instanceof Request ? input.url : input);
      validator.validate(init?.method ?? 'GET', url.pathname, response.status, type, await response.clone().json());
    }
    return response;
  };
  const client = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${server.origin}/v1`, maxRetries: 0, fetch: validatingFetch });
  /** The openai client insists on a key; a request without one goes through plain fetch. */
  const noKey = (path: string, body?: unknown) =>
    fetch(`${server.origin}/v1${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    fixture = await openFixture({ http: { openaiCompat: true }, openai: { reply: (body) => `Answer to: ${lastText(body.messages)}` } });
    server = await startServer('node:http', fixture.handler);
    validator = new OpenApiValidator(fixture.handler.openapi());
    api = new ApiClient(server.origin, validator, fixture.alice);
    const datastoreId = (await api.post<{ id: string }>('/api/datastores', { name: 'Facts' })).body.id;
    await api.post(`/api/datastores/upsert/${datastoreId}`, { documents: DOCUMENTS });
    const tools = [{ type: 'datastore', datastoreId }];
    agentId = (
      await api.post<{ id: string }>('/api/agents', {
        name: 'Facts',
        description: 'd',
        tools,
        handle: 'facts',
        systemPrompt: 'You are the facts agent.',
        // Without the default instructions, the system message is the agent's prompt alone.
        restrictKnowledge: false,
        useMarkdown: false,
      })
    ).body.id;
    publicId = (await api.post<{ id: string }>('/api/agents', { name: 'Public', description: 'd', tools, visibility: 'public' })).body.id;
    openPublicId = (
      await api.post<{ id: string }>('/api/agents', {
        name: 'Open',
        description: 'd',
        tools,
        visibility: 'public',
        handle: 'open-facts',
        openaiCompatPublic: true,
      })
    ).body.id;
    const bob = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), fixture.bob);
    bobAgentId = (await bob.post<{ id: string }>('/api/agents', { name: 'Bob', description: 'd' })).body.id;
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  it('answers a completion: the last user message is the question, the earlier ones its history, sources in `ragdesk`', async () => {
    const completion = (await client(fixture.alice).chat.completions.create({
      model: agentId,
      messages: [
        { role: 'system', content: 'Talk like a pirate.' },
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi, ask me about facts.' },
        { role: 'user', content: [{ type: 'text', text: 'What causes tides?' }] },
      ],
    })) as WithExtra<OpenAI.ChatCompletion>;
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe(agentId);
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    const answer = completion.choices[0]!.message.content!;
    expect(answer).toContain('Answer to:');
    expect(answer).toContain('What causes tides?');
    expect(completion.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(completion.usage!.completion_tokens).toBeGreaterThan(0);
    expect(completion.usage!.total_tokens).toBe(completion.usage!.prompt_tokens + completion.usage!.completion_tokens);
    expect(completion.ragdesk.sources[0]!.datasource_name).toBe('tides.md');
    expect(completion.ragdesk.warnings.join(' ')).toContain('system messages from the client were passed as user turns');

    const upstream = fixture.openai.chatRequests().at(-1)!;
    // The agent's prompt is the only system text; the client's system message became a user turn.
    expect(upstream.messages.filter((message) => message.role === 'system').map((message) => message.content)).toEqual([
      'You are the facts agent.',
    ]);
    expect(upstream.messages.slice(1, 4)).toEqual([
      { role: 'user', content: 'Talk like a pirate.' },
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi, ask me about facts.' },
    ]);
    expect(upstream.messages.at(-1)!.content).toContain('gravitational pull of the moon');

    // The exchange is stored as a conversation holding this question and answer (the client's history is not).
    await api.post(`/api/agents/${agentId}/query`, { query: 'And the sun?', conversationId: completion.ragdesk.conversationId });
    expect(fixture.openai.chatRequests().at(-1)!.messages.slice(1, 3)).toEqual([
      { role: 'user', content: 'What causes tides?' },
      { role: 'assistant', content: answer },
    ]);
  });

  it('streams chat.completion.chunk objects, with the usage chunk when stream_options.include_usage is set', async () => {
    const stream = await client(fixture.alice).chat.completions.create({
      model: '@facts',
      messages: [{ role: 'user', content: 'Why does a volcano erupt?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: WithExtra<OpenAI.ChatCompletionChunk>[] = [];
    for await (const chunk of stream) chunks.push(chunk as WithExtra<OpenAI.ChatCompletionChunk>);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.id === chunks[0]!.id)).toBe(true);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('Answer to: Why does a volcano erupt?');
    expect(chunks.length).toBeGreaterThan(4);
    const finishing = chunks.filter((chunk) => chunk.choices[0]?.finish_reason);
    expect(finishing).toHaveLength(1);
    expect(finishing[0]!.choices[0]!.finish_reason).toBe('stop');
    expect(finishing[0]!.ragdesk.sources[0]!.datasource_name).toBe('volcano.md');
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage!.completion_tokens).toBeGreaterThan(0);
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
  });

  it('without stream_options.include_usage, no chunk carries usage; a bare handle names the agent too', async () => {
    const stream = await client(fixture.alice).chat.completions.create({
      model: 'facts',
      messages: [{ role: 'user', content: 'What makes sourdough rise?' }],
      stream: true,
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.some((chunk) => 'usage' in chunk)).toBe(false);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Answer to: What makes sourdough rise?');
  });

  it('an earlier message too long for any memory budget is left out with the turns before it', async () => {
    const completion = (await client(fixture.alice).chat.completions.create({
      model: agentId,
      messages: [
        { role: 'user', content: 'Old question.' },
        { role: 'user', content: 'x'.repeat(150_000) },
        { role: 'assistant', content: 'Noted.' },
        { role: 'user', content: 'What causes tides?' },
      ],
    })) as WithExtra<OpenAI.ChatCompletion>;
    expect(completion.ragdesk.warnings.join(' ')).toContain('earlier messages were left out');
    expect(fixture.openai.chatRequests().at(-1)!.messages.slice(1, -1)).toEqual([{ role: 'assistant', content: 'Noted.' }]);
  });

  it('errors come in OpenAI’s shape with ragdesk’s code and details, as the client’s error classes', async () => {
    const unknown = await client(fixture.alice)
      .chat.completions.create({ model: 'no-such-agent', messages: [{ role: 'user', content: 'x' }] })
      .catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknown).toMatchObject({ status: 404, code: 'not_found', param: 'model', type: 'not_found_error' });

    // Another owner's agent answers exactly like an unknown one.
    const foreign = await client(fixture.alice)
      .chat.completions.create({ model: bobAgentId, messages: [{ role: 'user', content: 'x' }] })
      .catch((error: unknown) => error);
    expect(foreign).toBeInstanceOf(OpenAI.NotFoundError);
    expect((foreign as Error).message.replace(bobAgentId, 'ID')).toBe((unknown as Error).message.replace('no-such-agent', 'ID'));

    const lastNotUser = await client(fixture.alice)
      .chat.completions.create({
        model: agentId,
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: 'y' },
        ],
      })
      .catch((error: unknown) => error);
    expect(lastNotUser).toBeInstanceOf(OpenAI.BadRequestError);
    expect(lastNotUser).toMatchObject({ code: 'invalid_request', param: 'messages[1]', type: 'invalid_request_error' });

    const hot = await client(fixture.alice)
      .chat.completions.create({ model: agentId, temperature: 1.5, messages: [{ role: 'user', content: 'x' }] })
      .catch((error: unknown) => error);
    expect(hot).toMatchObject({ status: 400, param: 'temperature' });

    const badKey = await client('rdk_not_a_real_key_at_all')
      .chat.completions.create({ model: agentId, messages: [{ role: 'user', content: 'x' }] })
      .catch((error: unknown) => error);
    expect(badKey).toBeInstanceOf(OpenAI.AuthenticationError);

    const unknownRoute = await fetch(`${server.origin}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fixture.alice}` },
    });
    expect(unknownRoute.status).toBe(404);
    expect(((await unknownRoute.json()) as { error: { type: string; param: null } }).error).toMatchObject({
      type: 'not_found_error',
      param: null,
      code: 'not_found',
    });
  });

  it('an error after the stream opened is an in-band error event the client throws', async () => {
    fixture.openai.enqueue({ kind: 'stream_error', pieces: 2, message: 'upstream broke' });
    const stream = await client(fixture.alice).chat.completions.create({
      model: agentId,
      messages: [{ role: 'user', content: 'What causes tides?' }],
      stream: true,
    });
    const failure = await (async () => {
      for await (const _chunk of stream) void _chunk;
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure).toMatchObject({ code: 'upstream_failed', type: 'server_error' });
  });

  it('visitors reach a public agent only when it turned openaiCompatPublic on; their sampling settings are ignored', async () => {
    const question = { messages: [{ role: 'user', content: 'What causes tides?' }] };
    expect((await noKey('/chat/completions', { model: publicId, ...question })).status).toBe(401);
    expect((await noKey('/chat/completions', { model: agentId, ...question })).status).toBe(401);
    const open = await noKey('/chat/completions', { model: '@open-facts', temperature: 0.9, ...question });
    expect(open.status).toBe(200);
    const body = (await open.json()) as WithExtra<OpenAI.ChatCompletion>;
    expect(body.choices[0]!.message.content).toContain('What causes tides?');
    expect(body.ragdesk.warnings.join(' ')).toContain("ignored temperature: only the agent's owner may set it");
    expect(fixture.openai.chatRequests().at(-1)!.temperature).toBe(0);

    // Another owner's key is a visitor too: the opted-in agent answers, the other public one is a 404.
    const bob = client(fixture.bob);
    await expect(
      bob.chat.completions.create({ model: openPublicId, messages: [{ role: 'user', content: 'Tides?' }] }),
    ).resolves.toMatchObject({
      object: 'chat.completion',
    });
    await expect(bob.chat.completions.create({ model: publicId, messages: [{ role: 'user', content: 'Tides?' }] })).rejects.toBeInstanceOf(
      OpenAI.NotFoundError,
    );
  });

  it('lists the agents a caller may chat with as models', async () => {
    const owned = await client(fixture.alice).models.list();
    const ids = owned.data.map((model) => model.id);
    expect(ids).toEqual(expect.arrayContaining(['@facts', publicId, '@open-facts']));
    expect(ids).not.toContain(bobAgentId);
    const bobs = (await client(fixture.bob).models.list()).data.map((model) => model.id);
    expect(bobs.sort()).toEqual(['@open-facts', bobAgentId].sort());
    const anonymous = (await (await noKey('/models')).json()) as { data: { id: string; name: string }[] };
    expect(anonymous.data.map((model) => [model.id, model.name])).toEqual([['@open-facts', 'Open']]);

    const queryless = (await fixture.ragdesk.keys.create({ ownerId: 'alice', name: 'reader', scopes: ['read'] })).key;
    fixture.leaks.addSecret(queryless);
    await expect(client(queryless).models.list()).rejects.toBeInstanceOf(OpenAI.PermissionDeniedError);
  });

  it('every JSON answer above matched the OpenAPI document', () => {
    expect([...validator.checked.keys()]).toEqual(
      expect.arrayContaining([
        'POST /v1/chat/completions 200',
        'POST /v1/chat/completions 400',
        'POST /v1/chat/completions 401',
        'POST /v1/chat/completions 404',
        'GET /v1/models 200',
        'GET /v1/models 403',
      ]),
    );
  });

  it('with CORS on, pages on an allowed origin get preflights answered on /v1 and on the AI SDK route', async () => {
    const app = 'https://app.example.com';
    const cors = await startServer(
      'node:http',
      fixture.watch(createHttpHandler(fixture.ragdesk, { openaiCompat: true, cors: { origins: [app] } })),
    );
    try {
      for (const path of ['/v1/chat/completions', `/api/agents/${openPublicId}/ai-sdk`]) {
        const preflight = await fetch(`${cors.origin}${path}`, {
          method: 'OPTIONS',
          headers: {
            origin: app,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization, content-type',
          },
        });
        expect(preflight.status, path).toBe(204);
        expect(preflight.headers.get('access-control-allow-origin')).toBe(app);
      }
      const answer = await fetch(`${cors.origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { origin: app, 'content-type': 'application/json' },
        body: JSON.stringify({ model: openPublicId, messages: [{ role: 'user', content: 'Tides?' }] }),
      });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('access-control-allow-origin')).toBe(app);
    } finally {
      await cors.close();
    }
  });

  it('the OpenAPI document lists the routes when they are on; without the option they are not served', async () => {
    const document = fixture.handler.openapi();
    expect(Object.keys(document.paths as object)).toEqual(expect.arrayContaining(['/v1/chat/completions', '/v1/models']));
    // Every component, the request body of the chat route included, compiles as strict JSON Schema.
    const components = (document.components as { schemas: Record<string, unknown> }).schemas;
    expect(Object.keys(components)).toEqual(
      expect.arrayContaining(['ChatCompletionRequest', 'ChatCompletion', 'ModelList', 'OpenAIError']),
    );
    for (const name of Object.keys(components)) expect(() => validator.ajv.getSchema(`ragdesk#/$defs/${name}`), name).not.toThrow();
    const plain = await startServer('node:http', fixture.watch(createHttpHandler(fixture.ragdesk)));
    try {
      const response = await fetch(`${plain.origin}/v1/models`, { headers: { authorization: `Bearer ${fixture.alice}` } });
      expect(response.status).toBe(404);
      expect(Object.keys(createHttpHandler(fixture.ragdesk).openapi().paths as object)).not.toContain('/v1/models');
    } finally {
      await plain.close();
    }
  });
});

describe('the OpenAI-compatible routes over the offline answerer', () => {
  let ragdesk: Ragdesk;
  let server: RunningServer;
  let agentId: string;
  let key: string;

  beforeAll(async () => {
    ragdesk = createRagdesk({ ...memoryStores(), index: exactIndex(), embeddings: localEmbeddings(), chat: localAnswerer() });
    key = (await ragdesk.keys.create({ ownerId: 'owner', name: 'k', scopes: ['admin'] })).key;
    const datastore = await ragdesk.datastores.create({ name: 'Facts' }, { ownerId: 'owner' });
    await datastore.upsert(DOCUMENTS);
    agentId = (await ragdesk.agents.create({ name: 'Offline', description: 'd', datastoreIds: [datastore.id] }, { ownerId: 'owner' })).id;
    server = await startServer('node:http', createHttpHandler(ragdesk, { openaiCompat: { basePath: '/compat/v1' } }));
  });
  afterAll(async () => {
    await server?.close();
    await ragdesk?.close();
  });

  it('answers streaming and not, at a base path of its own', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${server.origin}/compat/v1`, maxRetries: 0 });
    const messages = [{ role: 'user' as const, content: 'What causes tides?' }];
    const completion = (await client.chat.completions.create({ model: agentId, messages })) as WithExtra<OpenAI.ChatCompletion>;
    const answer = completion.choices[0]!.message.content!;
    expect(answer).toContain('gravitational pull of the moon');
    expect(completion.ragdesk.model).toMatch(/^local/);
    const stream = await client.chat.completions.create({
      model: agentId,
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe(answer);
    expect(usage!.total_tokens).toBeGreaterThan(0);
  });
});

function lastText(messages: readonly { role: string; content: string | null }[]): string {
  const content = messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
  // The agent's default user prompt wraps the question as `Question: ...`.
  return /Question: (.*)/.exec(content)?.[1] ?? content;
}
