import type { Dispatcher } from './dispatch.js';
import { NOSNIFF } from './response-headers.js';
import type { HttpRequest, HttpResult } from './types.js';

/** Extra facts a fetch server knows but a `Request` does not carry. */
export interface FetchInfo {
  /** Client address, for the rate limiter's key when a request has no API key. */
  remoteAddress?: string;
}

const encoder = new TextEncoder();

/** The web-standard side: `fetch(request) => Response` for Hono, Bun, Deno, workers. */
export async function handleFetch(dispatcher: Dispatcher, request: Request, info: FetchInfo = {}): Promise<Response> {
  const url = new URL(request.url);
  const relative = dispatcher.relativePath(url.pathname);
  if (relative === null) {
    return toResponse(
      {
        kind: 'json',
        status: 404,
        body: { error: { code: 'not_found', message: `No route for ${request.method} ${url.pathname.slice(0, 200)}`, details: {} } },
      },
      new AbortController(),
    );
  }
  // Aborted when the server says the client left (request.signal) or the response body is cancelled.
  const aborter = new AbortController();
  if (request.signal.aborted) aborter.abort();
  else request.signal.addEventListener('abort', () => aborter.abort(), { once: true });
  const signal = aborter.signal;
  const httpRequest: HttpRequest = {
    method: request.method.toUpperCase(),
    path: url.pathname,
    query: url.searchParams,
    header: (name) => request.headers.get(name) ?? undefined,
    body: request.body ? chunksOf(request.body) : null,
    signal,
    remoteAddress: info.remoteAddress,
  };
  const result = await dispatcher.handle(httpRequest, relative);
  // Not awaited: the answer goes out while the rest of the body is read and discarded.
  if (request.body && result.kind !== 'stream') void drainUnread(request.body);
  return toResponse(result, aborter);
}

/**
 * Unread request bytes read and discarded before an early answer. Beyond this the answer goes out at
 * once and the rest is left to the server (@hono/node-server reads on up to 64 MiB after answering,
 * then closes the connection): reading 64 MiB *before* answering delayed the answer, and cancelling
 * the body then made the server drop the connection before the answer was written.
 */
const DRAIN_LIMIT = 64 * 1024 * 1024;

/**
 * A request answered before its body was read (401, 413, ...): read a small remainder before
 * answering. Node fetch servers close a connection whose request body was left unread, and a
 * client that is still sending (or reuses the connection) then sees "other side closed" instead of
 * the answer. The body is never cancelled here (see DRAIN_LIMIT).
 */
async function drainUnread(body: ReadableStream<Uint8Array>): Promise<void> {
  if (body.locked) return;
  const reader = body.getReader();
  let seen = 0;
  try {
    while (seen <= DRAIN_LIMIT) {
      const { done, value } = await reader.read();
      if (done) return;
      seen += value.length;
    }
  } catch {
    // The client went away mid-body: nothing left to answer.
  } finally {
    reader.releaseLock();
  }
}

async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

function toResponse(result: HttpResult, aborter: AbortController): Response {
  if (result.kind === 'empty') return new Response(null, { status: result.status, headers: { ...result.headers, ...NOSNIFF } });
  if (result.kind === 'json') {
    return new Response(JSON.stringify(result.body), {
      status: result.status,
      headers: { ...result.headers, ...NOSNIFF, 'content-type': 'application/json; charset=utf-8' },
    });
  }
  const iterator = result.chunks[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const turn = result.pace?.();
        if (turn) await turn;
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (error) {
        controller.error(error);
      }
    },
    // The client went away: stop the model call and the iterator.
    async cancel() {
      aborter.abort();
      await iterator.return?.();
    },
  });
  return new Response(body, { status: result.status, headers: { ...result.headers, ...NOSNIFF } });
}
