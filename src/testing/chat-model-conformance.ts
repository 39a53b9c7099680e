import { afterEach, describe, expect, it } from 'vitest';
import { RagdeskError } from '../errors.js';
import type { ModelName } from '../ports/agent-key-usage-records.js';
import type { ChatGrounding, ChatMessage, ChatModel, ChatRequest, ChatStreamPart, ChatUsage } from '../ports/chat-model.js';

/** How the suite gets the chat model under test, and what that model promises. */
export interface ChatModelHarness {
  /** The model under test; called at the start of every test. */
  create(): ChatModel | Promise<ChatModel>;
  /** `ChatRequest.model` to send (default: `resolveModel('gpt_3_5_turbo').id`, else the empty string). */
  model?: string;
  /** The conversation sent in every test (default: a system prompt and one question). */
  messages?: ChatMessage[];
  /** `ChatRequest.grounding` sent in every test (extractive answerers answer from it). */
  grounding?: ChatGrounding;
  /**
   * Same request → same text, and `stream` yields exactly the text `generate` returns. True for
   * the offline answerer and a scripted server; false for sampling models.
   */
  deterministic?: boolean;
  /** The model stops at `maxTokens` and says `finishReason: 'length'` (language models do). */
  honoursMaxTokens?: boolean;
  /**
   * Resolves once the upstream noticed that the last stream was abandoned (e.g. a test server saw
   * the client disconnect). Omit for models with no upstream; the suite then only checks that the
   * stream itself stopped.
   */
  upstreamStopped?(): Promise<void>;
  /** Runs after every test. */
  cleanup?(): void | Promise<void>;
}

const DEFAULT_MESSAGES: ChatMessage[] = [
  { role: 'system', content: 'You answer questions about the solar system in a few sentences.' },
  { role: 'user', content: 'Which planet has the largest moons, and what are they called? Please explain in detail.' },
];

const FINISH_REASONS = ['stop', 'length', 'content_filter', 'error', 'other'];
const MODEL_NAMES: ModelName[] = ['gpt_3_5_turbo', 'gpt_3_5_turbo_16k', 'gpt_4', 'gpt_4_32k'];

function expectUsage(usage: ChatUsage): void {
  for (const count of [usage.promptTokens, usage.completionTokens]) {
    expect(Number.isInteger(count)).toBe(true);
    expect(count).toBeGreaterThanOrEqual(0);
  }
  expect(usage.promptTokens).toBeGreaterThan(0);
}

async function collect(stream: AsyncIterable<ChatStreamPart>): Promise<ChatStreamPart[]> {
  const parts: ChatStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

function expectAborted(error: unknown): void {
  expect(RagdeskError.isInstance(error), `expected a RagdeskError, got ${String(error)}`).toBe(true);
  expect((error as { code: string }).code).toBe('aborted');
}

/**
 * The ChatModel contract (`src/ports/chat-model.ts`), for every chat adapter:
 * `generate` and `stream` shapes, usage numbers, aborts, and the optional promises the harness
 * declares (determinism, `maxTokens`, the API model table).
 */
export function describeChatModelConformance(label: string, harness: ChatModelHarness): void {
  describe(`ChatModel conformance: ${label}`, () => {
    let model: ChatModel;

    async function request(extra: Partial<ChatRequest> = {}): Promise<ChatRequest> {
      model = await harness.create();
      const id = harness.model ?? model.resolveModel?.('gpt_3_5_turbo').id ?? '';
      return { messages: harness.messages ?? DEFAULT_MESSAGES, model: id, ...grounding(), ...extra };
    }

    function grounding(): Pick<ChatRequest, 'grounding'> {
      return harness.grounding ? { grounding: harness.grounding } : {};
    }

    afterEach(async () => {
      await harness.cleanup?.();
    });

    it('has a name', async () => {
      model = await harness.create();
      expect(typeof model.name).toBe('string');
      expect(model.name.length).toBeGreaterThan(0);
    });

    it('generate returns text, a finish reason, usage and warnings', async () => {
      const result = await model.generate(await request());
      expect(typeof result.text).toBe('string');
      expect(result.text.length).toBeGreaterThan(0);
      expect(FINISH_REASONS).toContain(result.finishReason);
      expectUsage(result.usage);
      expect(result.usage.completionTokens).toBeGreaterThan(0);
      expect(Array.isArray(result.warnings)).toBe(true);
      for (const warning of result.warnings) expect(typeof warning).toBe('string');
    });

    it('stream yields non-empty text deltas, then exactly one finish part, last', async () => {
      const parts = await collect(model.stream(await request()));
      const finishes = parts.filter((part) => part.type === 'finish');
      expect(finishes).toHaveLength(1);
      expect(parts.at(-1)?.type).toBe('finish');
      const deltas = parts.slice(0, -1);
      expect(deltas.length).toBeGreaterThan(0);
      for (const part of deltas) {
        expect(part.type).toBe('delta');
        if (part.type === 'delta') expect(part.text.length).toBeGreaterThan(0);
      }
      const finish = finishes[0]!;
      if (finish.type !== 'finish') throw new Error('unreachable');
      expect(FINISH_REASONS).toContain(finish.finishReason);
      expectUsage(finish.usage);
      expect(finish.usage.completionTokens).toBeGreaterThan(0);
      expect(Array.isArray(finish.warnings)).toBe(true);
    });

    it('a signal aborted beforehand fails both calls with `aborted` and yields nothing', async () => {
      const controller = new AbortController();
      controller.abort();
      const aborted = await request({ signal: controller.signal });
      await model.generate(aborted).then(() => expect.fail('generate resolved despite an aborted signal'), expectAborted);
      const parts: ChatStreamPart[] = [];
      await (async () => {
        for await (const part of model.stream(aborted)) parts.push(part);
      })().then(() => expect.fail('stream completed despite an aborted signal'), expectAborted);
      expect(parts).toEqual([]);
    });

    it('aborting mid-stream ends it with `aborted`, no finish part, and stops the upstream', async () => {
      const controller = new AbortController();
      const parts: ChatStreamPart[] = [];
      let failure: unknown;
      try {
        for await (const part of model.stream(await request({ signal: controller.signal }))) {
          parts.push(part);
          if (part.type === 'delta') controller.abort();
        }
      } catch (error) {
        failure = error;
      }
      expectAborted(failure);
      expect(parts.filter((part) => part.type === 'delta')).toHaveLength(1);
      expect(parts.some((part) => part.type === 'finish')).toBe(false);
      await harness.upstreamStopped?.();
    });

    it('a consumer that stops reading early releases the stream, and the model keeps working', async () => {
      const first = await request();
      for await (const part of model.stream(first)) {
        expect(part.type).toBe('delta');
        break;
      }
      await harness.upstreamStopped?.();
      const result = await model.generate(first);
      expect(result.text.length).toBeGreaterThan(0);
    });

    it.runIf(harness.deterministic === true)('is deterministic, and stream and generate give the same text', async () => {
      const base = await request();
      const first = await model.generate(base);
      const second = await model.generate(base);
      expect(second.text).toBe(first.text);
      const parts = await collect(model.stream(base));
      const streamed = parts.flatMap((part) => (part.type === 'delta' ? [part.text] : [])).join('');
      expect(streamed).toBe(first.text);
      const finish = parts.at(-1);
      if (finish?.type !== 'finish') throw new Error('no finish part');
      expect(finish.usage).toEqual(first.usage);
    });

    it.runIf(harness.honoursMaxTokens === true)('stops at maxTokens with finishReason "length"', async () => {
      const limited = await request({ maxTokens: 2 });
      const result = await model.generate(limited);
      expect(result.finishReason).toBe('length');
      expect(result.usage.completionTokens).toBeLessThanOrEqual(2);
      const finish = (await collect(model.stream(limited))).at(-1);
      if (finish?.type !== 'finish') throw new Error('no finish part');
      expect(finish.finishReason).toBe('length');
      expect(finish.usage.completionTokens).toBeLessThanOrEqual(2);
    });

    it('models, when present, lists known names and a default among them', async () => {
      model = await harness.create();
      if (!model.models) return;
      const offered = model.models();
      expect(offered.names.length).toBeGreaterThan(0);
      for (const name of offered.names) expect([...MODEL_NAMES, 'local_extractive']).toContain(name);
      expect(offered.names).toContain(offered.default);
    });

    it('resolveModel, when present, maps every hosted name it runs to an id that works', async () => {
      model = await harness.create();
      if (!model.resolveModel) return;
      const runs = model.models?.().names ?? MODEL_NAMES;
      for (const name of MODEL_NAMES.filter((hosted) => runs.includes(hosted))) {
        const resolved = model.resolveModel(name);
        expect(typeof resolved.id).toBe('string');
        expect(resolved.id.length).toBeGreaterThan(0);
        expect(Number.isInteger(resolved.contextWindow)).toBe(true);
        expect(resolved.contextWindow).toBeGreaterThanOrEqual(4096);
      }
      const { id } = model.resolveModel('gpt_4');
      const result = await model.generate({ messages: harness.messages ?? DEFAULT_MESSAGES, model: id, ...grounding() });
      expect(result.text.length).toBeGreaterThan(0);
    });
  });
}
