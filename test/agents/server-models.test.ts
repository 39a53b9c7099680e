/**
 * `ragdesk.agents.models()`: the model names the configured chat adapter runs, the default a new
 * agent gets, refusals of others, and an agent saved under another chat adapter (a data folder
 * moved from an OpenAI-backed server to an offline one) answered by the default with a warning.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localAnswerer } from '../../adapters/local/index.js';
import { openaiChat } from '../../adapters/openai/index.js';
import { RagdeskError } from '../../src/index.js';
import type { ChatModel } from '../../src/ports/chat-model.js';
import { tempDir } from '../helpers/setups.js';
import { HANDBOOK, openAgentSetup } from './helpers.js';

/** An adapter with its own `models()`, around the offline answerer so queries need no network. */
function offering(names: ChatModel['models']): ChatModel {
  const inner = localAnswerer();
  return {
    name: 'test:offering',
    specificationVersion: 'v1',
    models: names,
    generate: (request) => inner.generate(request),
    stream: (request) => inner.stream(request),
  };
}

async function rejection(promise: Promise<unknown>): Promise<RagdeskError> {
  const error: unknown = await promise.then(
    () => new Error('expected a rejection'),
    (caught: unknown) => caught,
  );
  expect(RagdeskError.isInstance(error), String(error)).toBe(true);
  return error as RagdeskError;
}

describe('the models a ragdesk instance runs', () => {
  let temp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    temp = tempDir();
  });
  afterEach(() => temp.remove());

  it('lists what the adapter offers; without models() the hosted names; without a chat model nothing', async () => {
    const offline = openAgentSetup(temp.dir, { chat: localAnswerer() });
    // openAgentSetup records requests through a wrapper that keeps only resolveModel: the
    // third-party adapter that says nothing about its models.
    expect(offline.ragdesk.agents.models()).toEqual({
      models: ['gpt_3_5_turbo', 'gpt_3_5_turbo_16k', 'gpt_4', 'gpt_4_32k'],
      default: 'gpt_3_5_turbo',
      answerer: 'local:extractive',
    });
    await offline.ragdesk.close();

    const own = openAgentSetup(temp.dir, { extra: { chat: offering(() => ({ names: ['gpt_4', 'gpt_4_32k'], default: 'gpt_4_32k' })) } });
    expect(own.ragdesk.agents.models()).toEqual({ models: ['gpt_4', 'gpt_4_32k'], default: 'gpt_4_32k', answerer: 'test:offering' });
    expect((await own.ragdesk.agents.create({ name: 'a', description: '' })).modelName).toBe('gpt_4_32k');
    await own.ragdesk.close();

    const none = openAgentSetup(temp.dir, { extra: { chat: undefined } });
    expect(none.ragdesk.agents.models()).toEqual({ models: [], default: null, answerer: null });
    expect((await none.ragdesk.agents.create({ name: 'b', description: '' })).modelName).toBe('gpt_3_5_turbo');
    await none.ragdesk.close();
  });

  it('the offline answerer and the OpenAI adapter say what they run', () => {
    expect(localAnswerer().models?.()).toEqual({ names: ['local_extractive'], default: 'local_extractive' });
    const hosted = openaiChat({ apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1' });
    expect(hosted.models?.()).toEqual({ names: ['gpt_3_5_turbo', 'gpt_3_5_turbo_16k', 'gpt_4', 'gpt_4_32k'], default: 'gpt_3_5_turbo' });
    expect(() => hosted.resolveModel?.('local_extractive')).toThrow(/not a hosted model/);
  });

  it('refuses a create, an update and a query naming a model the adapter does not run', async () => {
    const setup = openAgentSetup(temp.dir, { extra: { chat: localAnswerer() } });
    const { agents } = setup.ragdesk;
    const refused = await rejection(agents.create({ name: 'x', description: '', modelName: 'gpt_4' }));
    expect(refused.code).toBe('model_not_available');
    expect(refused.status).toBe(400);
    expect(refused.details).toMatchObject({ issues: [{ path: 'modelName' }], available: ['local_extractive'] });
    expect(await agents.list()).toEqual([]);

    const agent = await agents.create({ name: 'y', description: '' });
    expect(agent.modelName).toBe('local_extractive');
    expect((await rejection(agents.update(agent.id, { description: '', modelName: 'gpt_3_5_turbo' }))).code).toBe('model_not_available');
    expect((await agents.get(agent.id)).modelName).toBe('local_extractive');
    expect((await rejection(agents.query(agent.id, { query: 'q', modelName: 'gpt_4' }))).code).toBe('model_not_available');
    await setup.ragdesk.close();
  });

  it('answers an agent saved under another adapter with the default, and says so', async () => {
    const hosted = openAgentSetup(temp.dir, { extra: { chat: openaiChat({ apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1' }) } });
    const datastore = await hosted.ragdesk.datastores.create({ name: 'handbook' });
    await datastore.upsert(HANDBOOK);
    const saved = await hosted.ragdesk.agents.create({
      name: 'support',
      description: '',
      modelName: 'gpt_4',
      datastoreIds: [datastore.id],
    });
    await hosted.ragdesk.close();

    const offline = openAgentSetup(temp.dir, { extra: { chat: localAnswerer() } });
    const response = await offline.ragdesk.agents.query(saved.id, { query: 'How many days do I have to return an unopened product?' });
    expect(response.model).toBe('local:extractive');
    expect(response.answer).toContain('30 days');
    expect(response.warnings[0]).toBe("the agent's model gpt_4 is not available on this server; local_extractive answered instead");
    // Saving it unchanged (as the console's form does) is allowed; choosing a model it cannot run is not.
    expect((await offline.ragdesk.agents.update(saved.id, { description: 'kept', modelName: 'gpt_4' })).description).toBe('kept');
    await offline.ragdesk.close();
  });

  it('an adapter listing an unknown name or a default it does not list is an adapter bug', async () => {
    const bad = openAgentSetup(temp.dir, { extra: { chat: offering(() => ({ names: ['gpt_4'], default: 'gpt_3_5_turbo' })) } });
    expect(() => bad.ragdesk.agents.models()).toThrow(expect.objectContaining({ code: 'invalid_adapter' }) as Error);
    await bad.ragdesk.close();
  });
});
