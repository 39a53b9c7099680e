import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NOTHING_FOUND } from '../../adapters/local/index.js';
import { RagdeskError } from '../../src/index.js';
import type { AgentStreamEvent } from '../../src/index.js';
import { tempDir } from '../helpers/setups.js';
import { HANDBOOK, openAgentSetup, type AgentSetup } from './helpers.js';

async function rejection(promise: Promise<unknown>): Promise<RagdeskError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RagdeskError);
  return error as RagdeskError;
}

function issuePaths(error: RagdeskError): string[] {
  return ((error.details?.issues ?? []) as { path: string }[]).map((issue) => issue.path);
}

describe('agents: CRUD', () => {
  let temp: ReturnType<typeof tempDir>;
  let setup: AgentSetup;
  beforeEach(() => {
    temp = tempDir();
    setup = openAgentSetup(temp.dir);
  });
  afterEach(async () => {
    await setup.ragdesk.close();
    temp.remove();
  });

  it('creates with defaults, gets, lists, patches and deletes', async () => {
    const { agents, datastores } = setup.ragdesk;
    const datastore = await datastores.create({ name: 'handbook' });
    const agent = await agents.create({ name: 'Support', description: 'Answers customers', datastoreIds: [datastore.id] });
    expect(agent).toMatchObject({
      name: 'Support',
      description: 'Answers customers',
      modelName: 'gpt_3_5_turbo',
      temperature: 0,
      visibility: 'private',
      systemPrompt: null,
      userPrompt: null,
      promptType: null,
      promptTemplate: null,
      datastoreIds: [datastore.id],
      ownerId: null,
    });
    expect(await agents.get(agent.id)).toEqual(agent);
    expect((await agents.list()).map((a) => a.id)).toEqual([agent.id]);

    const patched = await agents.update(agent.id, { description: 'Now public', visibility: 'public', temperature: 0.4 });
    expect(patched).toMatchObject({ name: 'Support', description: 'Now public', visibility: 'public', temperature: 0.4 });
    expect(patched.modelName).toBe('gpt_3_5_turbo');

    const deleted = await agents.delete(agent.id);
    expect(deleted).toEqual(patched);
    expect((await rejection(agents.get(agent.id))).code).toBe('not_found');
  });

  it('refuses bad input naming the field, and unknown datastores', async () => {
    const { agents } = setup.ragdesk;
    const noDescription = await rejection(agents.create({ name: 'x' } as never));
    expect(issuePaths(noDescription)).toContain('description');
    const badTemperature = await rejection(agents.create({ name: 'x', description: '', temperature: 1.5 }));
    expect(issuePaths(badTemperature)).toEqual(['temperature']);
    const badModel = await rejection(agents.create({ name: 'x', description: '', modelName: 'gpt_5' as never }));
    expect(issuePaths(badModel)).toEqual(['modelName']);
    expect((await rejection(agents.create({ name: 'x', description: '', datastoreIds: ['nope'] }))).code).toBe('not_found');
    const agent = await agents.create({ name: 'x', description: 'd' });
    const patchWithoutDescription = await rejection(agents.update(agent.id, { name: 'y' } as never));
    expect(issuePaths(patchWithoutDescription)).toEqual(['description']);
    expect((await agents.get(agent.id)).name).toBe('x');
  });
});

describe('agents: query flow with the offline answerer', () => {
  let temp: ReturnType<typeof tempDir>;
  let setup: AgentSetup;
  let agentId: string;
  let datasourceIds: Map<string, string>;
  beforeEach(async () => {
    temp = tempDir();
    setup = openAgentSetup(temp.dir);
    const datastore = await setup.ragdesk.datastores.create({ name: 'handbook' });
    const { ids } = await datastore.upsert(
      HANDBOOK.map((doc) => ({ ...doc, custom_id: doc.name === 'warranty.md' ? 'tenant-b' : 'tenant-a' })),
    );
    datasourceIds = new Map(HANDBOOK.map((doc, i) => [doc.name, ids[i]!]));
    agentId = (await setup.ragdesk.agents.create({ name: 'Support', description: 'Answers', datastoreIds: [datastore.id] })).id;
  });
  afterEach(async () => {
    await setup.ragdesk.close();
    temp.remove();
  });

  it('answers from the right document, cites it, and lists one source per datasource best first', async () => {
    const response = await setup.ragdesk.agents.query(agentId, { query: 'How many days do I have to return an unopened product?' });
    expect(response.answer).toContain('30 days');
    expect(response.answer).toMatch(/\[\d\]/);
    expect(response.model).toBe('local:extractive');
    expect(response.sources[0]).toMatchObject({
      datasource_id: datasourceIds.get('returns.md'),
      datasource_name: 'returns.md',
      datasource_type: 'text',
    });
    const ids = response.sources.map((source) => source.datasource_id);
    expect(new Set(ids).size).toBe(ids.length);
    // Sources keep the retrieval order; each score is the 0..1 similarity of that excerpt.
    for (const source of response.sources) expect(source.score).toSatisfy((score: number) => score > 0 && score <= 1);
    expect(response.usage.promptTokens).toBeGreaterThan(20);
    expect(response.usage.totalTokens).toBe(response.usage.promptTokens + response.usage.completionTokens);
    expect(response.usage.cost).toBe(0);
    expect(response.conversationId).toBeTruthy();
    expect(response.visitorId).toBeTruthy();
  });

  it('says plainly when nothing relevant was found', async () => {
    const response = await setup.ragdesk.agents.query(agentId, { query: 'Who painted the Sistine Chapel ceiling?' });
    expect(response.answer).toBe(NOTHING_FOUND);
  });

  it('applies filters: a tenant sees only its own documents', async () => {
    const response = await setup.ragdesk.agents.query(agentId, {
      query: 'What does the kettle warranty cover?',
      filters: { custom_ids: ['tenant-a'] },
    });
    expect(response.sources.map((source) => source.datasource_name)).not.toContain('warranty.md');
    expect(response.sources.every((source) => source.custom_id === 'tenant-a')).toBe(true);
  });

  it('keeps the conversation: history reaches the model, messages are stored, ids are reused', async () => {
    const { agents } = setup.ragdesk;
    const first = await agents.query(agentId, { query: 'How much does express delivery cost?' });
    const second = await agents.query(agentId, { query: 'Do you ship to post office boxes?', conversationId: first.conversationId });
    expect(second.conversationId).toBe(first.conversationId);
    expect(second.visitorId).toBe(first.visitorId);
    const sent = setup.chat.requests[1]!.messages;
    expect(sent.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(sent[1]!.content).toBe('How much does express delivery cost?');
    expect(sent[2]!.content).toBe(first.answer);
    const stored = await setup.store.listMessages(agentId, first.conversationId);
    expect(stored.map((message) => message.role)).toEqual(['assistant', 'user', 'assistant', 'user']);
    expect(stored[0]!.id).toBe(second.messageId);
    expect(stored[0]!.sources).toEqual(second.sources);
  });

  it('drops the oldest turns first when the memory budget is short', async () => {
    await setup.ragdesk.close();
    temp.remove();
    temp = tempDir();
    setup = openAgentSetup(temp.dir, { extra: { agents: { budget: { maxMemoryTokens: 60 } } } });
    const datastore = await setup.ragdesk.datastores.create({ name: 'h' });
    await datastore.upsert(HANDBOOK);
    const agent = await setup.ragdesk.agents.create({ name: 'a', description: 'd', datastoreIds: [datastore.id] });
    const first = await setup.ragdesk.agents.query(agent.id, { query: 'Who pays for express delivery to Germany?' });
    await setup.ragdesk.agents.query(agent.id, { query: 'What about refunds to my card?', conversationId: first.conversationId });
    await setup.ragdesk.agents.query(agent.id, { query: 'Is limescale covered?', conversationId: first.conversationId });
    const history = setup.chat.requests[2]!.messages.slice(1, -1).map((message) => message.content);
    expect(history).not.toContain('Who pays for express delivery to Germany?');
    expect(history).toContain('What about refunds to my card?');
  });

  it('assembles prompts: system, then the template with {query} and {context}; deprecated fields mapped', async () => {
    const { agents } = setup.ragdesk;
    await agents.query(agentId, {
      query: 'warranty length?',
      systemPrompt: 'Be terse.',
      userPrompt: 'Q={query}\nDOCS={context}',
    });
    const [system, user] = setup.chat.requests[0]!.messages;
    // The agent's defaults (restrictKnowledge and useMarkdown on) add their instructions after it.
    expect(system!.role).toBe('system');
    expect(system!.content.split('\n')).toEqual([
      'Be terse.',
      'Answer only from the context given with the question. If it does not contain the answer, say that you do not know; do not use any other knowledge.',
      'Format the answer in Markdown.',
    ]);
    expect(user!.content.startsWith('Q=warranty length?\nDOCS=[1] (')).toBe(true);
    expect(user!.content).toContain('two-year warranty');

    await agents.query(agentId, { query: 'shipping cost?', promptType: 'raw', promptTemplate: 'Use {context} to answer: {query}' });
    // The raw preset has no system prompt of its own; the settings' instructions still make one.
    const [rawSystem, raw, ...more] = setup.chat.requests[1]!.messages;
    expect(more).toHaveLength(0);
    expect(rawSystem!.content.startsWith('Answer only from the context')).toBe(true);
    expect(raw!.content.startsWith('Use [1] (')).toBe(true);
    expect(raw!.content.endsWith('to answer: shipping cost?')).toBe(true);

    await agents.update(agentId, { description: 'd', promptType: 'customer_support' });
    await agents.query(agentId, { query: 'refund time?' });
    expect(setup.chat.requests[2]!.messages[0]!.content).toContain('customer support agent');
  });

  it('validates every query field with its range and names it', async () => {
    const { agents } = setup.ragdesk;
    const cases: [Record<string, unknown>, string][] = [
      [{ query: '' }, 'query'],
      [{ query: 'q', temperature: 1.2 }, 'temperature'],
      [{ query: 'q', presencePenalty: -2.5 }, 'presencePenalty'],
      [{ query: 'q', frequencyPenalty: 3 }, 'frequencyPenalty'],
      [{ query: 'q', topP: 1.5 }, 'topP'],
      [{ query: 'q', maxTokens: 0 }, 'maxTokens'],
      [{ query: 'q', modelName: 'gpt_4_32k' }, 'modelName'],
      [{ query: 'q', filters: { custom_ids: 'a' } }, 'filters.custom_ids'],
    ];
    for (const [body, path] of cases) {
      const error = await rejection(agents.query(agentId, body as never));
      expect(error.code, path).toBe('invalid_request');
      expect(issuePaths(error), path).toEqual([path]);
    }
    expect(setup.chat.requests).toHaveLength(0);
  });

  it('never continues a conversation of another agent (ids are per agent: the same id is a new conversation there), and refuses unknown agents', async () => {
    const { agents } = setup.ragdesk;
    const other = await agents.create({ name: 'other', description: 'd' });
    const first = await agents.query(agentId, { query: 'refund time?' });
    const elsewhere = await agents.query(other.id, { query: 'hi', conversationId: first.conversationId });
    expect(elsewhere.conversationId).toBe(first.conversationId);
    // Two conversations under one id, one per agent, neither seeing the other's messages.
    expect(setup.chat.requests.at(-1)!.messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect((await setup.store.listMessages(agentId, first.conversationId)).map((message) => message.text)).toContain('refund time?');
    expect((await setup.store.listMessages(other.id, first.conversationId)).map((message) => message.text)).toContain('hi');
    expect(await setup.store.listMessages(agentId, first.conversationId)).toHaveLength(2);
    expect(await setup.store.listMessages(other.id, first.conversationId)).toHaveLength(2);
    expect((await rejection(agents.query('missing', { query: 'hi' }))).code).toBe('not_found');
  });

  it('deleting an agent deletes its conversations', async () => {
    const first = await setup.ragdesk.agents.query(agentId, { query: 'refund time?' });
    await setup.ragdesk.agents.delete(agentId);
    expect(await setup.store.getConversation(agentId, first.conversationId)).toBeNull();
    expect(await setup.store.listMessages(agentId, first.conversationId)).toEqual([]);
  });
});

describe('agents: streaming, abort and usage limits', () => {
  let temp: ReturnType<typeof tempDir>;
  let setup: AgentSetup;
  afterEach(async () => {
    await setup.ragdesk.close();
    temp.remove();
  });

  async function agentWithHandbook(extra: Parameters<typeof openAgentSetup>[1] = {}): Promise<string> {
    temp = tempDir();
    setup = openAgentSetup(temp.dir, extra);
    const datastore = await setup.ragdesk.datastores.create({ name: 'handbook' });
    await datastore.upsert(HANDBOOK);
    return (await setup.ragdesk.agents.create({ name: 'a', description: 'd', datastoreIds: [datastore.id] })).id;
  }

  it('streams deltas in order, then one endpoint_response carrying the whole answer', async () => {
    const agentId = await agentWithHandbook();
    const events: AgentStreamEvent[] = [];
    for await (const event of await setup.ragdesk.agents.openStream(agentId, { query: 'What does the warranty not cover?' }))
      events.push(event);
    const last = events.at(-1)!;
    expect(last.type).toBe('endpoint_response');
    const deltas = events.slice(0, -1);
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.every((event) => event.type === 'answer')).toBe(true);
    const joined = deltas.map((event) => (event.type === 'answer' ? event.delta : '')).join('');
    if (last.type !== 'endpoint_response') throw new Error('unreachable');
    expect(joined).toBe(last.response.answer);
    expect(joined).toContain('limescale');
    expect((await setup.store.listMessages(agentId, last.response.conversationId))[0]!.text).toBe(joined);
  });

  it('an abort mid-stream stops the answer and stores nothing', async () => {
    const agentId = await agentWithHandbook({ answerer: { wordDelayMs: 20 } });
    const controller = new AbortController();
    const stream = await setup.ragdesk.agents.openStream(
      agentId,
      { query: 'How long is the kettle warranty?' },
      { signal: controller.signal },
    );
    let deltas = 0;
    const error = await rejection(
      (async () => {
        for await (const event of stream) {
          if (event.type === 'answer' && ++deltas === 2) controller.abort();
        }
      })(),
    );
    expect(error.code).toBe('aborted');
    expect(deltas).toBe(2);
    const conversations = await setup.store.listConversations(agentId);
    expect(conversations).toEqual([]);
  });

  it('a usage limit refuses the query before any model call, with usage_limit (402)', async () => {
    const agentId = await agentWithHandbook({ extra: { agents: { queryLimit: { maxQueries: 2, period: 'day' } } } });
    await setup.ragdesk.agents.query(agentId, { query: 'refund time?' });
    await setup.ragdesk.agents.query(agentId, { query: 'shipping cost?' });
    const error = await rejection(setup.ragdesk.agents.openStream(agentId, { query: 'warranty?' }));
    expect(error.code).toBe('usage_limit');
    expect(error.status).toBe(402);
    expect(setup.chat.requests).toHaveLength(2);
    // Another owner has its own counter.
    await expect(setup.ragdesk.agents.query(agentId, { query: 'warranty?' }, { ownerId: 'someone-else' })).resolves.toBeTruthy();
  });
});
