import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openaiChat, openaiEmbeddings, DEFAULT_MODEL_TABLE, type OpenAIChatOptions } from '../../../adapters/openai/index.js';
import { RagdeskError } from '../../../src/errors.js';
import { cl100kTokenizer } from '../../../src/ingest/tokenizer.js';
import type { ChatRequest, ChatStreamPart } from '../../../src/ports/chat-model.js';
import { hashedEmbedding, promptTokensOf, splitReply, startOpenAIServer, type OpenAIServer } from '../../../fixtures/openai-server.js';

/** Every behaviour of `ragdesk/openai`, through the real `openai` client against a local server. */
let server: OpenAIServer;

beforeAll(async () => {
  server = await startOpenAIServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => server.reset());

/** Fast backoff so retry tests take milliseconds; Retry-After values still count as given. */
const FAST = { initialDelayMs: 5, maxDelayMs: 20 };

function chat(options: OpenAIChatOptions = {}) {
  return openaiChat({ apiKey: 'test-key', baseURL: server.baseURL, retry: FAST, ...options });
}

const QUESTION: ChatRequest = {
  model: 'gpt-4.1-mini',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'What is the capital of France?' },
  ],
};

async function failureOf(promise: Promise<unknown>): Promise<RagdeskError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!RagdeskError.isInstance(outcome)) throw new Error(`expected a RagdeskError, got ${String(outcome)}`);
  return outcome;
}

async function drain(stream: AsyncIterable<ChatStreamPart>, onPart?: (part: ChatStreamPart) => void): Promise<ChatStreamPart[]> {
  const parts: ChatStreamPart[] = [];
  for await (const part of stream) {
    parts.push(part);
    onPart?.(part);
  }
  return parts;
}

function textOf(parts: ChatStreamPart[]): string {
  return parts.flatMap((part) => (part.type === 'delta' ? [part.text] : [])).join('');
}

describe('openaiChat: request and response', () => {
  it('sends the messages and every sampling setting, with the API key', async () => {
    const result = await chat().generate({
      ...QUESTION,
      temperature: 0.3,
      topP: 0.9,
      presencePenalty: 0.5,
      frequencyPenalty: -0.5,
      maxTokens: 50,
    });
    const [body] = server.chatRequests();
    expect(body).toEqual({
      model: 'gpt-4.1-mini',
      messages: QUESTION.messages,
      stream: false,
      temperature: 0.3,
      top_p: 0.9,
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      max_tokens: 50,
    });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer test-key');
    expect(result.text).toBe('Echo: What is the capital of France?');
    expect(result.finishReason).toBe('stop');
    expect(result.warnings).toEqual([]);
  });

  it('sends no sampling field the caller left out, and max_completion_tokens when configured', async () => {
    await chat({ maxTokensField: 'max_completion_tokens' }).generate({ ...QUESTION, maxTokens: 7 });
    const [body] = server.chatRequests();
    expect(Object.keys(body!).sort()).toEqual(['max_completion_tokens', 'messages', 'model', 'stream']);
    expect(body!.max_completion_tokens).toBe(7);
  });

  it('reads usage from the response, and stops at maxTokens with finishReason "length"', async () => {
    const result = await chat().generate({ ...QUESTION, maxTokens: 3 });
    expect(result.usage).toEqual({ promptTokens: promptTokensOf(server.chatRequests()[0]!), completionTokens: 3 });
    expect(result.finishReason).toBe('length');
    expect(result.text).toBe('Echo: What is ');
  });

  it('counts usage locally, with a warning, when the server reports none', async () => {
    server.configure({ usage: 'never' });
    const tokenizer = cl100kTokenizer();
    const expected = {
      promptTokens: 3 + QUESTION.messages.reduce((sum, message) => sum + tokenizer.count(message.content) + 4, 0),
      completionTokens: tokenizer.count('Echo: What is the capital of France?'),
    };
    const result = await chat().generate(QUESTION);
    expect(result.usage).toEqual(expected);
    expect(result.warnings.join(' ')).toMatch(/no token usage.*counted locally/);
    const finish = (await drain(chat().stream(QUESTION))).at(-1);
    expect(finish).toEqual({ type: 'finish', usage: expected, finishReason: 'stop', warnings: result.warnings });
  });

  it('maps API model names through the table, overridable, and names itself by label and model', async () => {
    const model = chat({ label: 'ollama', models: { gpt_4: { id: 'llama3.1:70b', contextWindow: 131_072 } } });
    expect(model.name).toBe(`ollama:${DEFAULT_MODEL_TABLE.gpt_3_5_turbo.id}`);
    expect(model.resolveModel?.('gpt_4')).toEqual({ id: 'llama3.1:70b', contextWindow: 131_072 });
    expect(model.resolveModel?.('gpt_4_32k')).toEqual(DEFAULT_MODEL_TABLE.gpt_4_32k);
    await model.generate({ ...QUESTION, model: 'gpt_4' });
    await model.generate({ ...QUESTION, model: '' });
    expect(server.chatRequests().map((body) => body.model)).toEqual(['llama3.1:70b', DEFAULT_MODEL_TABLE.gpt_3_5_turbo.id]);
  });

  it('uses a ready client, without letting the client retry underneath the adapter', async () => {
    const client = new OpenAI({ apiKey: 'client-key', baseURL: server.baseURL, maxRetries: 5 });
    server.enqueue({ kind: 'error', status: 500 });
    const failure = await failureOf(openaiChat({ client, maxRetries: 0 }).generate(QUESTION));
    expect(failure.code).toBe('upstream_failed');
    expect(server.chatRequests()).toHaveLength(1);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer client-key');
  });

  it('refuses bad options with invalid_request naming the field', () => {
    const error = (() => {
      try {
        chat({ timeoutMs: -1, retry: { initialDelayMs: -5 } });
      } catch (caught) {
        return caught as RagdeskError;
      }
      throw new Error('no error');
    })();
    expect(error.code).toBe('invalid_request');
    expect((error.details!['issues'] as Array<{ path: string }>).map((issue) => issue.path).sort()).toEqual([
      'retry.initialDelayMs',
      'timeoutMs',
    ]);
  });

  it('needs an API key only when talking to OpenAI itself', () => {
    const saved = { key: process.env['OPENAI_API_KEY'], url: process.env['OPENAI_BASE_URL'] };
    delete process.env['OPENAI_API_KEY'];
    delete process.env['OPENAI_BASE_URL'];
    try {
      expect(() => openaiChat()).toThrow(expect.objectContaining({ code: 'invalid_request' }));
      expect(openaiChat({ baseURL: server.baseURL }).name).toMatch(/^openai:/);
    } finally {
      if (saved.key !== undefined) process.env['OPENAI_API_KEY'] = saved.key;
      if (saved.url !== undefined) process.env['OPENAI_BASE_URL'] = saved.url;
    }
  });
});

describe('openaiChat: streaming', () => {
  it('yields the deltas in order, then one finish with the usage chunk the client asked for', async () => {
    const parts = await drain(chat().stream(QUESTION));
    const [body] = server.chatRequests();
    expect(body!.stream).toBe(true);
    expect(body!.stream_options).toEqual({ include_usage: true });
    const expectedText = 'Echo: What is the capital of France?';
    expect(parts.slice(0, -1)).toEqual(splitReply(expectedText).map((text) => ({ type: 'delta', text })));
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      usage: { promptTokens: promptTokensOf(body!), completionTokens: splitReply(expectedText).length },
      finishReason: 'stop',
      warnings: [],
    });
  });

  it('without streamUsage sends no stream_options and counts usage locally', async () => {
    const finish = (await drain(chat({ streamUsage: false }).stream(QUESTION))).at(-1);
    expect(server.chatRequests()[0]).not.toHaveProperty('stream_options');
    if (finish?.type !== 'finish') throw new Error('no finish');
    expect(finish.usage.completionTokens).toBe(cl100kTokenizer().count('Echo: What is the capital of France?'));
    expect(finish.warnings).toHaveLength(1);
  });

  it('a slow stream aborted by the caller ends with `aborted`, and the server sees the disconnect', async () => {
    server.configure({ reply: () => 'word '.repeat(200), interTokenDelayMs: 100 });
    // 200 words at 100 ms: without the abort the stream would end normally after 20 s; fewer than 20
    // pieces sent leaves 1.7 s for the disconnect to reach the server.
    const controller = new AbortController();
    const parts: ChatStreamPart[] = [];
    const failure = await failureOf(
      drain(chat().stream({ ...QUESTION, signal: controller.signal }), (part) => {
        parts.push(part);
        if (parts.length === 3) controller.abort();
      }),
    );
    expect(failure.code).toBe('aborted');
    expect(failure.status).toBe(499);
    const disconnect = await server.nextDisconnect();
    expect(disconnect.path).toBe('/v1/chat/completions');
    expect(disconnect.piecesSent).toBeLessThan(20);
    expect(parts).toHaveLength(3);
  });

  it('a consumer that breaks out of the loop closes the upstream request', async () => {
    server.configure({ reply: () => 'word '.repeat(200), interTokenDelayMs: 100 });
    for await (const part of chat().stream(QUESTION)) {
      expect(part.type).toBe('delta');
      break;
    }
    expect((await server.nextDisconnect()).piecesSent).toBeLessThan(20);
  });

  it('a malformed stream fails with upstream_failed after the text it had, and is not retried', async () => {
    server.enqueue({ kind: 'malformed' });
    const parts: ChatStreamPart[] = [];
    const failure = await failureOf(
      drain(chat({ maxRetries: 3, clientOptions: { logLevel: 'off' } }).stream(QUESTION), (part) => parts.push(part)),
    );
    expect(failure.code).toBe('upstream_failed');
    expect(failure.status).toBe(502);
    expect(failure.details).toMatchObject({ reason: 'malformed_response' });
    expect(parts).toEqual([{ type: 'delta', text: 'Echo: ' }]);
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('a malformed JSON answer to generate fails with upstream_failed', async () => {
    server.enqueue({ kind: 'malformed' });
    const failure = await failureOf(chat({ maxRetries: 0 }).generate(QUESTION));
    expect(failure.code).toBe('upstream_failed');
    expect(failure.details).toMatchObject({ reason: 'malformed_response' });
  });

  it('a stream cut off before its finish chunk fails with incomplete_stream', async () => {
    server.enqueue({ kind: 'truncated', pieces: 2 });
    const failure = await failureOf(drain(chat().stream(QUESTION)));
    expect(failure.code).toBe('upstream_failed');
    expect(failure.details).toMatchObject({ reason: 'incomplete_stream' });
  });

  it('an error event inside the stream fails with upstream_failed and its message', async () => {
    server.enqueue({ kind: 'stream_error', pieces: 1, message: 'overloaded' });
    const failure = await failureOf(drain(chat().stream(QUESTION)));
    expect(failure.code).toBe('upstream_failed');
    expect(failure.message).toContain('overloaded');
    expect(failure.details).toMatchObject({ reason: 'stream_error' });
  });

  it('a failure before the first delta is retried; the consumer sees one clean stream', async () => {
    server.enqueue({ kind: 'error', status: 503 }, { kind: 'disconnect' });
    const parts = await drain(chat().stream(QUESTION));
    expect(textOf(parts)).toBe('Echo: What is the capital of France?');
    expect(parts.at(-1)?.type).toBe('finish');
    expect(server.chatRequests()).toHaveLength(3);
  });
});

describe('openaiChat: retries, timeouts, aborts', () => {
  it('429 then success: Retry-After is honoured', async () => {
    server.enqueue({ kind: 'rate_limit', retryAfter: '0.25' }, { kind: 'rate_limit', retryAfterMs: 150 });
    const started = performance.now();
    const result = await chat().generate(QUESTION);
    const elapsed = performance.now() - started;
    expect(result.text).toBe('Echo: What is the capital of France?');
    expect(server.chatRequests()).toHaveLength(3);
    // Backoff alone would wait ~5 + ~10 ms; the server asked for 250 + 150.
    expect(elapsed).toBeGreaterThanOrEqual(390);
    const gaps = server.requests.slice(1).map((request, i) => request.receivedAt - server.requests[i]!.receivedAt);
    expect(gaps[0]).toBeGreaterThanOrEqual(245);
    expect(gaps[1]).toBeGreaterThanOrEqual(145);
  });

  it('429 until retries run out: rate_limited (429) with the attempts and the wait asked for', async () => {
    server.enqueue(...Array.from({ length: 3 }, () => ({ kind: 'rate_limit' as const, retryAfterMs: 10 })));
    const failure = await failureOf(chat({ maxRetries: 2 }).generate(QUESTION));
    expect(failure.code).toBe('rate_limited');
    expect(failure.status).toBe(429);
    expect(failure.retryable).toBe(true);
    expect(failure.details).toMatchObject({ attempts: 3, retryAfterMs: 10, upstreamStatus: 429, upstreamCode: 'rate_limit_exceeded' });
  });

  it('a Retry-After longer than maxRetryAfterMs fails at once, for the caller to schedule', async () => {
    // Waiting the 120 s asked for would outlast the test's timeout.
    server.enqueue({ kind: 'rate_limit', retryAfter: '120' });
    const failure = await failureOf(chat({ retry: { maxRetryAfterMs: 1000 } }).generate(QUESTION));
    expect(failure.code).toBe('rate_limited');
    expect(failure.details).toMatchObject({ retryAfterMs: 120_000 });
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('a spent quota (429 insufficient_quota) is not retried', async () => {
    server.enqueue({ kind: 'rate_limit', code: 'insufficient_quota' });
    const failure = await failureOf(chat().generate(QUESTION));
    expect(failure.code).toBe('rate_limited');
    expect(failure.retryable).toBe(false);
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('500 is retried, then reported as upstream_failed (502) with the upstream status', async () => {
    server.enqueue(...Array.from({ length: 3 }, () => ({ kind: 'error' as const, status: 500, message: 'boom' })));
    const failure = await failureOf(chat({ maxRetries: 2 }).generate(QUESTION));
    expect(failure.code).toBe('upstream_failed');
    expect(failure.status).toBe(502);
    expect(failure.details).toMatchObject({ upstreamStatus: 500, attempts: 3 });
    expect(failure.message).toContain('boom');
    expect(server.chatRequests()).toHaveLength(3);
  });

  it('500 once, then success', async () => {
    server.enqueue({ kind: 'error', status: 500 });
    expect((await chat().generate(QUESTION)).text).toContain('Echo');
    expect(server.chatRequests()).toHaveLength(2);
  });

  it('a 400 is not retried', async () => {
    server.enqueue({ kind: 'error', status: 400, message: 'bad model', code: 'model_not_found' });
    const failure = await failureOf(chat().generate(QUESTION));
    expect(failure.code).toBe('upstream_failed');
    expect(failure.retryable).toBe(false);
    expect(failure.details).toMatchObject({ upstreamStatus: 400, upstreamCode: 'model_not_found' });
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('a dropped connection is retried', async () => {
    server.enqueue({ kind: 'disconnect' });
    expect((await chat().generate(QUESTION)).text).toContain('Echo');
    expect(server.chatRequests()).toHaveLength(2);
  });

  it('a server slower than timeoutMs: upstream_timeout (504) after the retries, each attempt cut off', async () => {
    // The server waits 2 s before its first token: an attempt that was not cut off would succeed.
    server.configure({ firstTokenDelayMs: 2000 });
    const failure = await failureOf(chat({ timeoutMs: 100, maxRetries: 1 }).generate(QUESTION));
    expect(failure.code).toBe('upstream_timeout');
    expect(failure.status).toBe(504);
    expect(failure.details).toMatchObject({ attempts: 2 });
    await server.nextDisconnect();
    await server.nextDisconnect();
  });

  it('for streams timeoutMs bounds each gap, not the whole answer', async () => {
    // 40 gaps of 50 ms: the whole answer (2 s) outlasts the 1 s timeout, each gap is 20x under it.
    server.configure({ reply: () => 'tick '.repeat(40), interTokenDelayMs: 50 });
    const parts = await drain(chat({ timeoutMs: 1_000 }).stream(QUESTION));
    expect(textOf(parts)).toBe('tick '.repeat(40));

    server.reset();
    server.configure({ reply: () => 'tick '.repeat(12), interTokenDelayMs: 3_000 });
    const seen: ChatStreamPart[] = [];
    const failure = await failureOf(drain(chat({ timeoutMs: 1_000, maxRetries: 2 }).stream(QUESTION), (part) => seen.push(part)));
    expect(failure.code).toBe('upstream_timeout');
    expect(seen).toEqual([{ type: 'delta', text: 'tick ' }]);
    // Text had been yielded, so no retry.
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('aborting during a Retry-After wait ends the call at once', async () => {
    server.enqueue({ kind: 'rate_limit', retryAfter: '30' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    // The wait asked for (30 s) would end in a retry and an answer, not `aborted`.
    const failure = await failureOf(chat({ retry: { maxRetryAfterMs: 60_000 } }).generate({ ...QUESTION, signal: controller.signal }));
    expect(failure.code).toBe('aborted');
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('aborting generate while the server thinks closes the request', async () => {
    server.configure({ firstTokenDelayMs: 5000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const failure = await failureOf(chat().generate({ ...QUESTION, signal: controller.signal }));
    expect(failure.code).toBe('aborted');
    expect((await server.nextDisconnect()).path).toBe('/v1/chat/completions');
  });
});

describe('openaiEmbeddings', () => {
  function embedder(options: Parameters<typeof openaiEmbeddings>[0] = {}) {
    return openaiEmbeddings({ apiKey: 'test-key', baseURL: server.baseURL, retry: FAST, ...options });
  }

  it('asks for base64 and decodes it exactly, with usage from the response', async () => {
    const model = embedder();
    expect(model).toMatchObject({ model: 'text-embedding-3-small', dimensions: 1536, maxBatchSize: 128 });
    const result = await model.embed(['alpha beta', 'gamma'], { purpose: 'document' });
    const [body] = server.embeddingRequests();
    expect(body).toEqual({ model: 'text-embedding-3-small', input: ['alpha beta', 'gamma'], encoding_format: 'base64' });
    expect(result.vectors).toEqual([hashedEmbedding('alpha beta', 1536), hashedEmbedding('gamma', 1536)]);
    expect(result.usage.tokens).toBe(3);
  });

  it('reads float arrays from servers that ignore encoding_format, and reorders by index', async () => {
    server.configure({ embeddingFormat: 'float', embeddingOrder: 'reversed' });
    const result = await embedder().embed(['one', 'two', 'three'], { purpose: 'query' });
    expect(result.vectors).toEqual(['one', 'two', 'three'].map((text) => hashedEmbedding(text, 1536)));
  });

  it('sends dimensions for shortened text-embedding-3 vectors only', async () => {
    await embedder({ dimensions: 256 }).embed(['x'], { purpose: 'query' });
    await embedder({ model: 'nomic-embed-text', dimensions: 1536 }).embed(['x'], { purpose: 'query' });
    expect(server.embeddingRequests().map((body) => body.dimensions)).toEqual([256, undefined]);
    expect(() => embedder({ model: 'nomic-embed-text' })).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });

  it('a server answering other dimensions than configured fails with upstream_failed', async () => {
    const failure = await failureOf(embedder({ model: 'nomic-embed-text', dimensions: 768 }).embed(['x'], { purpose: 'query' }));
    expect(failure.code).toBe('upstream_failed');
    expect(failure.details).toMatchObject({ reason: 'dimension_mismatch', expected: 768, received: 1536 });
  });

  it('blank texts are never sent upstream (OpenAI answers 400 to them)', async () => {
    const result = await embedder({ dimensions: 64 }).embed(['', 'real text', ' \t'], { purpose: 'document' });
    expect(server.embeddingRequests().map((body) => body.input)).toEqual([['real text']]);
    expect(result.vectors[0]).toEqual(result.vectors[2]);
    expect(result.vectors[1]).toEqual(hashedEmbedding('real text', 64));
    const allBlank = await embedder({ dimensions: 64 }).embed([''], { purpose: 'query' });
    expect(allBlank.usage.tokens).toBe(0);
    expect(server.embeddingRequests()).toHaveLength(1);
  });

  it('refuses more texts than maxBatchSize', async () => {
    const failure = await failureOf(embedder({ maxBatchSize: 2 }).embed(['a', 'b', 'c'], { purpose: 'document' }));
    expect(failure.code).toBe('invalid_request');
  });

  it('retries 429 and 5xx like chat', async () => {
    server.enqueue(
      { kind: 'rate_limit', retryAfterMs: 20, endpoint: 'embeddings' },
      { kind: 'error', status: 502, endpoint: 'embeddings' },
    );
    const result = await embedder().embed(['x'], { purpose: 'query' });
    expect(result.vectors).toHaveLength(1);
    expect(server.embeddingRequests()).toHaveLength(3);
  });
});
