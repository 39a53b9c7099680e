/**
 * A real, local OpenAI-compatible HTTP server (node:http on 127.0.0.1, port 0) for tests and
 * benchmarks. It speaks the wire format of `POST /v1/chat/completions` (plain JSON and
 * `stream: true` SSE, with the usage chunk when `stream_options.include_usage` is set) and
 * `POST /v1/embeddings` (`encoding_format` `base64` or `float`), so it is driven through the real
 * `openai` client, never mocked.
 *
 * Usage:
 * ```ts
 * const server = await startOpenAIServer({ reply: (body) => `Hi ${lastUserText(body)}` });
 * const client = new OpenAI({ apiKey: 'test', baseURL: server.baseURL });
 * server.enqueue({ kind: 'rate_limit', retryAfter: '0.05' });   // the next request gets a 429
 * ...
 * server.chatRequests()[0].messages;                             // what was sent upstream
 * await server.nextDisconnect();                                  // a client hung up mid-answer
 * await server.close();
 * ```
 *
 * Token counts are deterministic, not real tokens: a prompt costs its whitespace-separated words
 * plus 4 per message, a completion one token per streamed piece (see `splitReply`).
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ChatMessageBody {
  role: string;
  content: string | null;
}

/** The body of `POST /v1/chat/completions` as received (only the fields the server reads are typed). */
export interface ChatCompletionBody {
  model: string;
  messages: ChatMessageBody[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  temperature?: number;
  top_p?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  [field: string]: unknown;
}

/** The body of `POST /v1/embeddings` as received. */
interface EmbeddingsBody {
  model: string;
  input: string | string[];
  encoding_format?: 'float' | 'base64';
  dimensions?: number;
  [field: string]: unknown;
}

interface RecordedRequest {
  method: string;
  /** Path without the query, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  /** `performance.now()` when the body had been read. */
  receivedAt: number;
}

/** A client went away before the server finished its answer. */
interface Disconnect {
  path: string;
  /** Content pieces written before the client left (0 for non-streaming answers). */
  piecesSent: number;
  at: number;
}

type Endpoint = 'chat' | 'embeddings';

/**
 * A one-shot behaviour for one upcoming request. Queued entries are consumed in order by the
 * requests they apply to (`endpoint`, default: either endpoint); with the queue empty the server
 * answers normally.
 */
type ScriptedResponse = { endpoint?: Endpoint } &
  /** An OpenAI-shaped JSON error with this status (and headers, e.g. `retry-after`). */
  (
    | { kind: 'error'; status: number; message?: string; code?: string; headers?: Record<string, string> }
    /** 429 `rate_limit_exceeded`, with `retry-after` (seconds) and/or `retry-after-ms` when given. */
    | { kind: 'rate_limit'; retryAfter?: string; retryAfterMs?: number; code?: string }
    /** Reads the request, then destroys the socket without answering (a network error). */
    | { kind: 'disconnect' }
    /**
     * Streaming: the role chunk and one content piece, then a `data:` line that is not JSON, then the
     * end. Non-streaming: a 200 whose body is cut-off JSON.
     */
    | { kind: 'malformed' }
    /** Streaming: a few pieces, then the connection ends without a finish chunk or `[DONE]`. */
    | { kind: 'truncated'; pieces?: number }
    /** Streaming: a few pieces, then an in-stream `data: {"error": ...}` event, as OpenAI sends. */
    | { kind: 'stream_error'; pieces?: number; message?: string }
    /** A normal answer with some settings changed for this one request. */
    | ({ kind: 'reply' } & Partial<ReplySettings>)
  );

interface ReplySettings {
  /** The answer text; default: `reply(body)`. */
  text: string;
  /** Delay before the first content piece (streaming) or before the whole answer (non-streaming). */
  firstTokenDelayMs: number;
  /** Delay between two streamed pieces. */
  interTokenDelayMs: number;
  /**
   * When the answer carries `usage`: `when_asked` (non-streaming always, streaming only with
   * `stream_options.include_usage`, as OpenAI does), `always`, or `never` (servers that send none).
   */
  usage: 'when_asked' | 'always' | 'never';
  finishReason: 'stop' | 'length' | 'content_filter';
  /**
   * The exact streamed pieces (their concatenation is the answer), for cuts the word split never
   * makes, e.g. one emoji split into its two UTF-16 halves. Default: `splitReply(text)`.
   */
  pieces?: readonly string[];
}

export interface OpenAIServerOptions {
  /** The answer to a chat request. Default: `Echo: <last user message>`. */
  reply?: (body: ChatCompletionBody) => string;
  firstTokenDelayMs?: number;
  interTokenDelayMs?: number;
  usage?: ReplySettings['usage'];
  /** Embedding length when the request sets no `dimensions` (default 1536, text-embedding-3-small). */
  embeddingDimensions?: number;
  /** The embedding of one text; default: a deterministic unit vector seeded by the text. */
  embed?: (text: string, dimensions: number) => Float32Array;
  /** `float` answers with number arrays whatever was asked, as some compatible servers do. */
  embeddingFormat?: 'as_requested' | 'float';
  /** `reversed` lists embeddings last input first (each keeps its `index`), which the API allows. */
  embeddingOrder?: 'in_order' | 'reversed';
}

export interface OpenAIServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** `http://127.0.0.1:<port>/v1`, what the `openai` client takes as `baseURL`. */
  readonly baseURL: string;
  readonly port: number;
  /** Every request in arrival order, bodies parsed. */
  readonly requests: RecordedRequest[];
  /** Every client disconnect that happened before an answer was complete. */
  readonly disconnects: Disconnect[];
  /** Bodies of the chat requests, in order. */
  chatRequests(): ChatCompletionBody[];
  /** Bodies of the embeddings requests, in order. */
  embeddingRequests(): EmbeddingsBody[];
  /** Queues one-shot behaviours for the next matching requests. */
  enqueue(...responses: ScriptedResponse[]): void;
  /** Changes the standing behaviour (what un-scripted requests get). */
  configure(options: OpenAIServerOptions): void;
  /**
   * Resolves at the next disconnect. Disconnects already recorded and not yet awaited count first,
   * so calling this after the abort still sees it.
   */
  nextDisconnect(timeoutMs?: number): Promise<Disconnect>;
  /** Forgets requests, disconnects and queued behaviours and restores the start options. */
  reset(): void;
  close(): Promise<void>;
}

/** Text of the last user message of a chat body ('' if none). */
export function lastUserText(body: ChatCompletionBody): string {
  const users = body.messages.filter((message) => message.role === 'user');
  return users[users.length - 1]?.content ?? '';
}

/**
 * The streamed pieces of an answer: each word with the whitespace after it, so concatenating the
 * pieces gives the text back exactly. One piece is one completion "token" of this server.
 */
export function splitReply(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** Deterministic prompt token count of this server: words plus 4 per message. */
export function promptTokensOf(body: ChatCompletionBody): number {
  return body.messages.reduce((sum, message) => sum + splitReply(message.content ?? '').filter((p) => p.trim()).length + 4, 0);
}

/** The default embedding: a unit vector from a PRNG seeded with an FNV-1a hash of the text. */
export function hashedEmbedding(text: string, dimensions: number): Float32Array {
  let seed = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) seed = Math.imul(seed ^ text.charCodeAt(i), 0x01000193) >>> 0;
  const vector = new Float32Array(dimensions);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    // mulberry32
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const value = ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
    vector[i] = value;
    norm += value * value;
  }
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < dimensions; i++) vector[i]! *= scale;
  return vector;
}

const DEFAULT_OPTIONS: Required<Omit<OpenAIServerOptions, 'embed'>> & Pick<OpenAIServerOptions, 'embed'> = {
  reply: (body) => `Echo: ${lastUserText(body)}`,
  firstTokenDelayMs: 0,
  interTokenDelayMs: 0,
  usage: 'when_asked',
  embeddingDimensions: 1536,
  embed: undefined,
  embeddingFormat: 'as_requested',
  embeddingOrder: 'in_order',
};

export async function startOpenAIServer(initial: OpenAIServerOptions = {}): Promise<OpenAIServer> {
  let options = { ...DEFAULT_OPTIONS, ...initial };
  let queue: ScriptedResponse[] = [];
  const requests: RecordedRequest[] = [];
  const disconnects: Disconnect[] = [];
  let awaitedDisconnects = 0;
  const disconnectWaiters: Array<(disconnect: Disconnect) => void> = [];
  const sockets = new Set<Socket>();

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendError(response, 500, String(error));
      else response.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  function recordDisconnect(path: string, piecesSent: number): void {
    const disconnect = { path, piecesSent, at: performance.now() };
    disconnects.push(disconnect);
    const waiter = disconnectWaiters.shift();
    if (waiter) {
      awaitedDisconnects++;
      waiter(disconnect);
    }
  }

  function takeScripted(endpoint: Endpoint): ScriptedResponse | undefined {
    const index = queue.findIndex((entry) => entry.endpoint === undefined || entry.endpoint === endpoint);
    return index === -1 ? undefined : queue.splice(index, 1)[0];
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const text = await readBody(request);
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    let body: unknown = text;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      // kept as text: the recorded request shows what arrived
    }
    requests.push({ method: request.method ?? 'GET', path, headers: request.headers, body, receivedAt: performance.now() });
    const endpoint: Endpoint | undefined = path === '/v1/chat/completions' ? 'chat' : path === '/v1/embeddings' ? 'embeddings' : undefined;
    if (request.method !== 'POST' || endpoint === undefined) return sendError(response, 404, `No route ${request.method} ${path}`);
    if (typeof body !== 'object' || body === null) return sendError(response, 400, 'The body must be a JSON object');

    const scripted = takeScripted(endpoint);
    if (scripted && (await answerScriptedFailure(scripted, request, response, body as ChatCompletionBody))) return;
    const overrides = scripted?.kind === 'reply' ? scripted : {};
    if (endpoint === 'embeddings') return answerEmbeddings(body as EmbeddingsBody, response);
    return answerChat(body as ChatCompletionBody, response, path, overrides);
  }

  /** Failures shared by both endpoints and the streaming faults; true when the request was answered. */
  async function answerScriptedFailure(
    scripted: ScriptedResponse,
    request: IncomingMessage,
    response: ServerResponse,
    body: ChatCompletionBody,
  ): Promise<boolean> {
    switch (scripted.kind) {
      case 'error':
        sendError(response, scripted.status, scripted.message ?? `Scripted ${scripted.status}`, scripted.code, scripted.headers);
        return true;
      case 'rate_limit': {
        const headers: Record<string, string> = {};
        if (scripted.retryAfter !== undefined) headers['retry-after'] = scripted.retryAfter;
        if (scripted.retryAfterMs !== undefined) headers['retry-after-ms'] = String(scripted.retryAfterMs);
        sendError(response, 429, 'Rate limit reached (scripted)', scripted.code ?? 'rate_limit_exceeded', headers, 'requests');
        return true;
      }
      case 'disconnect':
        request.socket.destroy();
        return true;
      case 'malformed':
        if (body.stream !== true) {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end('{"id":"chatcmpl-broken","object":"chat.completion","choices":[{"index":0,"mess');
          return true;
        }
        await streamFault(body, response, 1, 'data: {"id":"chatcmpl-broken","choices":[{"delta": {"content": "x"\n\n');
        return true;
      case 'truncated':
        await streamFault(body, response, scripted.pieces ?? 2, null);
        return true;
      case 'stream_error': {
        const error = {
          error: {
            message: scripted.message ?? 'The server had an error while processing your request.',
            type: 'server_error',
            param: null,
            code: null,
          },
        };
        await streamFault(body, response, scripted.pieces ?? 2, `data: ${JSON.stringify(error)}\n\n`);
        return true;
      }
      case 'reply':
        return false;
    }
  }

  /** Streams `pieces` good pieces, then `tail` (or nothing), then ends the response. */
  async function streamFault(body: ChatCompletionBody, response: ServerResponse, pieces: number, tail: string | null): Promise<void> {
    const chunk = chunkFactory(body.model);
    openSse(response);
    response.write(sse(chunk({ role: 'assistant', content: '' }, null)));
    for (const piece of splitReply(options.reply(body)).slice(0, pieces)) response.write(sse(chunk({ content: piece }, null)));
    if (tail !== null) response.write(tail);
    response.end();
  }

  async function answerChat(
    body: ChatCompletionBody,
    response: ServerResponse,
    path: string,
    overrides: Partial<ReplySettings>,
  ): Promise<void> {
    const settings: ReplySettings = {
      text: overrides.text ?? options.reply(body),
      firstTokenDelayMs: overrides.firstTokenDelayMs ?? options.firstTokenDelayMs,
      interTokenDelayMs: overrides.interTokenDelayMs ?? options.interTokenDelayMs,
      usage: overrides.usage ?? options.usage,
      finishReason: overrides.finishReason ?? 'stop',
    };
    let pieces = overrides.pieces ? [...overrides.pieces] : splitReply(settings.text);
    let finishReason: ReplySettings['finishReason'] = settings.finishReason;
    const limit = body.max_completion_tokens ?? body.max_tokens;
    if (typeof limit === 'number' && pieces.length > limit) {
      pieces = pieces.slice(0, limit);
      finishReason = 'length';
    }
    const usage = {
      prompt_tokens: promptTokensOf(body),
      completion_tokens: pieces.length,
      total_tokens: promptTokensOf(body) + pieces.length,
    };
    let sent = 0;
    let finished = false;
    let closed = false;
    response.on('close', () => {
      closed = true;
      if (!finished) recordDisconnect(path, sent);
    });

    if (body.stream !== true) {
      await delay(settings.firstTokenDelayMs);
      if (closed) return;
      finished = true;
      sendJson(response, 200, {
        id: 'chatcmpl-local',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        system_fingerprint: 'fp_local',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: pieces.join(''), refusal: null },
            logprobs: null,
            finish_reason: finishReason,
          },
        ],
        ...(settings.usage === 'never' ? {} : { usage }),
      });
      return;
    }

    const wantsUsage = settings.usage === 'always' || (settings.usage === 'when_asked' && body.stream_options?.include_usage === true);
    const chunk = chunkFactory(body.model, wantsUsage);
    openSse(response);
    response.write(sse(chunk({ role: 'assistant', content: '' }, null)));
    await delay(settings.firstTokenDelayMs);
    for (const [index, piece] of pieces.entries()) {
      if (index > 0) await delay(settings.interTokenDelayMs);
      if (closed) return;
      response.write(sse(chunk({ content: piece }, null)));
      sent++;
    }
    if (closed) return;
    response.write(sse(chunk({}, finishReason)));
    if (wantsUsage) response.write(sse({ ...chunk({}, null), choices: [], usage }));
    finished = true;
    response.end('data: [DONE]\n\n');
  }

  function answerEmbeddings(body: EmbeddingsBody, response: ServerResponse): void {
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    // OpenAI's own answer to an empty string inside an input array.
    if (!Array.isArray(inputs) || inputs.length === 0 || (Array.isArray(body.input) && inputs.some((input) => input === ''))) {
      return sendError(
        response,
        400,
        "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.",
      );
    }
    const dimensions = body.dimensions ?? options.embeddingDimensions;
    const embed = options.embed ?? hashedEmbedding;
    const data = inputs.map((input, index) => {
      const vector = embed(String(input), dimensions);
      const embedding =
        body.encoding_format === 'base64' && options.embeddingFormat === 'as_requested'
          ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64')
          : Array.from(vector);
      return { object: 'embedding', index, embedding };
    });
    if (options.embeddingOrder === 'reversed') data.reverse();
    const tokens = inputs.reduce((sum, input) => sum + splitReply(String(input)).filter((p) => p.trim()).length, 0);
    sendJson(response, 200, { object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
  }

  const result: OpenAIServer = {
    origin,
    baseURL: `${origin}/v1`,
    port,
    requests,
    disconnects,
    chatRequests: () => requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body as ChatCompletionBody),
    embeddingRequests: () => requests.filter((r) => r.path === '/v1/embeddings').map((r) => r.body as EmbeddingsBody),
    enqueue: (...responses) => {
      queue.push(...responses);
    },
    configure: (changes) => {
      options = { ...options, ...changes };
    },
    nextDisconnect: (timeoutMs = 5000) => {
      if (awaitedDisconnects < disconnects.length) return Promise.resolve(disconnects[awaitedDisconnects++]!);
      return new Promise<Disconnect>((resolve, reject) => {
        const timer = setTimeout(() => {
          disconnectWaiters.splice(disconnectWaiters.indexOf(waiter), 1);
          reject(new Error(`No client disconnect within ${timeoutMs} ms`));
        }, timeoutMs);
        const waiter = (disconnect: Disconnect): void => {
          clearTimeout(timer);
          resolve(disconnect);
        };
        disconnectWaiters.push(waiter);
      });
    },
    reset: () => {
      options = { ...DEFAULT_OPTIONS, ...initial };
      queue = [];
      requests.length = 0;
      disconnects.length = 0;
      awaitedDisconnects = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return result;
}

function chunkFactory(model: string, withUsageField = false) {
  const created = Math.floor(Date.now() / 1000);
  return (delta: Record<string, unknown>, finishReason: string | null): Record<string, unknown> => ({
    id: 'chatcmpl-local',
    object: 'chat.completion.chunk',
    created,
    model,
    system_fingerprint: 'fp_local',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    // With include_usage, OpenAI sends `usage: null` on every chunk but the last.
    ...(withUsageField ? { usage: null } : {}),
  });
}

function sse(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

function openSse(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  response.flushHeaders();
}

function sendJson(response: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(value);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
}

function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  code?: string,
  headers: Record<string, string> = {},
  type?: string,
): void {
  const errorType = type ?? (status >= 500 ? 'server_error' : 'invalid_request_error');
  sendJson(response, status, { error: { message, type: errorType, param: null, code: code ?? null } }, headers);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    request.on('error', reject);
  });
}

function delay(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
