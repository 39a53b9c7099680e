import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openaiChat, DEFAULT_MODEL_TABLE } from '../../adapters/openai/index.js';
import { RagdeskError, type AgentStreamEvent } from '../../src/index.js';
import { lastUserText, startOpenAIServer, type OpenAIServer } from '../../fixtures/openai-server.js';
import { tempDir } from '../helpers/setups.js';
import { HANDBOOK, openAgentSetup, type AgentSetup } from './helpers.js';

/** The agent flow against a local OpenAI-compatible server, through the real `openai` client. */
describe('agents on an OpenAI-compatible server', () => {
  let server: OpenAIServer;
  let temp: ReturnType<typeof tempDir>;
  let setup: AgentSetup;
  let agentId: string;

  beforeAll(async () => {
    server = await startOpenAIServer({ reply: (body) => `You asked: ${lastUserText(body).split('\n').at(-3) ?? ''}` });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(async () => {
    server.reset();
    temp = tempDir();
    setup = openAgentSetup(temp.dir, {
      chat: openaiChat({ apiKey: 'test-key', baseURL: server.baseURL, maxRetries: 0 }),
      extra: { agents: { prices: { [DEFAULT_MODEL_TABLE.gpt_3_5_turbo.id]: { prompt: 1000, completion: 2000 } } } },
    });
    const datastore = await setup.ragdesk.datastores.create({ name: 'handbook' });
    await datastore.upsert(HANDBOOK);
    agentId = (
      await setup.ragdesk.agents.create({ name: 'a', description: 'd', datastoreIds: [datastore.id], promptType: 'customer_support' })
    ).id;
  });
  afterEach(async () => {
    await setup.ragdesk.close();
    temp.remove();
  });

  it('sends the retrieved context, the mapped deprecated preset and every sampling setting upstream', async () => {
    const response = await setup.ragdesk.agents.query(agentId, {
      query: 'How long is the kettle warranty?',
      temperature: 0.3,
      topP: 0.9,
      presencePenalty: 0.5,
      frequencyPenalty: -0.5,
      maxTokens: 77,
    });
    const [body] = server.chatRequests();
    expect(body!.messages[0]).toEqual({ role: 'system', content: expect.stringContaining('customer support agent') });
    expect(lastUserText(body!)).toContain('two-year warranty');
    expect(body).toMatchObject({ temperature: 0.3, top_p: 0.9, presence_penalty: 0.5, frequency_penalty: -0.5 });
    expect(body!.max_tokens ?? body!.max_completion_tokens).toBe(77);
    expect(response.answer).toContain('You asked');
    expect(response.sources[0]!.datasource_name).toBe('warranty.md');
  });

  it('reports usage and computes the cost from the price table', async () => {
    const response = await setup.ragdesk.agents.query(agentId, { query: 'refund time?' });
    expect(response.model).toBe(`openai:${DEFAULT_MODEL_TABLE.gpt_3_5_turbo.id}`);
    expect(server.chatRequests()[0]!.model).toBe(DEFAULT_MODEL_TABLE.gpt_3_5_turbo.id);
    const { promptTokens, completionTokens, totalTokens, cost } = response.usage;
    expect(promptTokens).toBeGreaterThan(0);
    expect(completionTokens).toBeGreaterThan(0);
    expect(totalTokens).toBe(promptTokens + completionTokens);
    expect(cost).toBeCloseTo((promptTokens * 1000 + completionTokens * 2000) / 1e6, 10);
  });

  it('streams through the client, usage included, and remembers the conversation', async () => {
    const events: AgentStreamEvent[] = [];
    for await (const event of await setup.ragdesk.agents.openStream(agentId, { query: 'shipping cost?' })) events.push(event);
    const final = events.at(-1);
    if (final?.type !== 'endpoint_response') throw new Error('no endpoint_response');
    const text = events.flatMap((event) => (event.type === 'answer' ? [event.delta] : [])).join('');
    expect(text).toBe(final.response.answer);
    expect(final.response.usage.completionTokens).toBeGreaterThan(0);
    await setup.ragdesk.agents.query(agentId, { query: 'and to Germany?', conversationId: final.response.conversationId });
    const second = server.chatRequests()[1]!;
    expect(second.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(second.messages[2]!.content).toBe(final.response.answer);
  });

  it('an abort stops the upstream call (the server sees the disconnect) and stores nothing', async () => {
    server.configure({ firstTokenDelayMs: 10, interTokenDelayMs: 50 });
    const controller = new AbortController();
    const stream = await setup.ragdesk.agents.openStream(agentId, { query: 'warranty?' }, { signal: controller.signal });
    const error = await (async () => {
      try {
        for await (const event of stream) if (event.type === 'answer') controller.abort();
      } catch (caught) {
        return caught;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(RagdeskError);
    expect((error as RagdeskError).code).toBe('aborted');
    const disconnect = await server.nextDisconnect(5000);
    expect(disconnect.path).toBe('/v1/chat/completions');
    expect(await setup.store.listConversations(agentId)).toEqual([]);
  });

  it('a failing upstream surfaces as a typed error and stores nothing', async () => {
    server.enqueue({ kind: 'error', status: 500 });
    await expect(setup.ragdesk.agents.query(agentId, { query: 'warranty?' })).rejects.toBeInstanceOf(RagdeskError);
    server.enqueue({ kind: 'malformed' });
    const stream = await setup.ragdesk.agents.openStream(agentId, { query: 'warranty?' });
    await expect(
      (async () => {
        for await (const _ of stream) void _;
      })(),
    ).rejects.toBeInstanceOf(RagdeskError);
    expect(await setup.store.listConversations(agentId)).toEqual([]);
  });
});

describe('openRagdesk picks OpenAI when OPENAI_API_KEY is set', () => {
  it('embeds and answers through the configured OpenAI-compatible server', async () => {
    const server = await startOpenAIServer({ reply: () => 'From the server.' });
    const temp = tempDir();
    const { openRagdesk } = await import('../../adapters/node.js');
    const ragdesk = openRagdesk({ dataDir: temp.dir, env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.baseURL } });
    try {
      expect(ragdesk.notes.join('\n')).toMatch(/OPENAI_API_KEY is set/);
      const datastore = await ragdesk.datastores.create({ name: 'h' });
      expect(datastore.embeddingModel).toBe('text-embedding-3-small');
      await datastore.upsert(HANDBOOK);
      const agent = await ragdesk.agents.create({ name: 'a', description: 'd', datastoreIds: [datastore.id] });
      const response = await ragdesk.agents.query(agent.id, { query: 'refund time?' });
      expect(response.answer).toBe('From the server.');
      expect(response.model.startsWith('openai:')).toBe(true);
      expect(server.embeddingRequests().length).toBeGreaterThan(0);
      expect(server.requests.every((request) => request.headers.authorization === 'Bearer sk-test')).toBe(true);
    } finally {
      await ragdesk.close();
      await server.close();
      temp.remove();
    }
  });

  it('stays offline without the key', async () => {
    const temp = tempDir();
    const { openRagdesk } = await import('../../adapters/node.js');
    const ragdesk = openRagdesk({ dataDir: temp.dir, env: {} });
    try {
      expect(ragdesk.adapters.chat).toBe('local:extractive');
      expect(ragdesk.adapters.embeddings).toMatch(/^local/);
    } finally {
      await ragdesk.close();
      temp.remove();
    }
  });
});
