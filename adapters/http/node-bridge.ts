import type { IncomingMessage, ServerResponse } from 'node:http';
import { RagdeskError } from '../../src/index.js';
import type { Dispatcher } from './dispatch.js';
import { NOSNIFF } from './response-headers.js';
import type { HttpRequest, HttpResult } from './types.js';

/** `(req, res, next?)`: node:http's request listener, Express middleware, or a Fastify raw handler. */
export type NodeListener = (request: IncomingMessage, response: ServerResponse, next?: (error?: unknown) => void) => void;

/** Unread request bytes discarded after an early answer (401, 413, ...) before the connection is cut. */
const DRAIN_LIMIT = 64 * 1024 * 1024;

export function nodeListener(dispatcher: Dispatcher): NodeListener {
  return (request, response, next) => {
    serve(dispatcher, request, response, next).catch((error: unknown) => {
      // Only a failure to write the response lands here (the dispatcher turns every other into JSON).
      if (!response.headersSent) {
        response.statusCode = 500;
        response.setHeader('x-content-type-options', 'nosniff');
        response.end();
      } else {
        response.destroy(error instanceof Error ? error : undefined);
      }
    });
  };
}

async function serve(
  dispatcher: Dispatcher,
  request: IncomingMessage,
  response: ServerResponse,
  next?: (error?: unknown) => void,
): Promise<void> {
  // Express strips a mount path from `req.url`; `originalUrl` keeps the whole path.
  const url = (request as { originalUrl?: string }).originalUrl ?? request.url ?? '/';
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  const relative = dispatcher.relativePath(path);
  if (relative === null) {
    if (next) return next();
    return writeResult(response, {
      kind: 'json',
      status: 404,
      body: { error: { code: 'not_found', message: `No route for ${request.method ?? 'GET'} ${path.slice(0, 200)}`, details: {} } },
    });
  }
  const aborter = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) aborter.abort();
  });
  const result = await dispatcher.handle(toHttpRequest(request, path, queryAt < 0 ? '' : url.slice(queryAt + 1), aborter.signal), relative);
  if (result.kind !== 'stream' && !request.complete && !request.destroyed) {
    // An early answer (401, 413, ...) with request bytes still coming: see `lingeringAnswer`.
    return lingeringAnswer(request, response, result);
  }
  await writeResult(response, result, aborter.signal);
}

function toHttpRequest(request: IncomingMessage, path: string, query: string, signal: AbortSignal): HttpRequest {
  // A framework body parser (express.json()) may have consumed the stream already; use what it parsed.
  const consumed = request.readableEnded;
  const parsed = (request as { body?: unknown }).body;
  return {
    method: (request.method ?? 'GET').toUpperCase(),
    path,
    query: new URLSearchParams(query),
    header(name) {
      const value = request.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    body: consumed ? null : bodyOf(request),
    ...(consumed && parsed !== undefined ? { parsedBody: parsed } : {}),
    signal,
    remoteAddress: request.socket.remoteAddress,
  };
}

/**
 * The request body. Not destroyed on an early return: the socket must live to carry the error
 * response. A client that leaves mid-body is `aborted` (499, not logged as a failure of ours).
 */
async function* bodyOf(request: IncomingMessage): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of request.iterator({ destroyOnReturn: false })) yield chunk as Uint8Array;
  } catch (error) {
    if (!request.destroyed && (error as { code?: string }).code !== 'ECONNRESET') throw error;
    throw new RagdeskError('aborted', 'The client closed the connection before sending the whole request body', { cause: error });
  }
}

async function writeResult(response: ServerResponse, result: HttpResult, signal?: AbortSignal): Promise<void> {
  if (result.kind === 'empty') {
    // A 204 carries no Content-Length at all (RFC 9110 8.6).
    response.writeHead(result.status, { ...result.headers, ...NOSNIFF, ...(result.status === 204 ? {} : { 'content-length': 0 }) });
    response.end();
    return;
  }
  if (result.kind === 'json') {
    const text = JSON.stringify(result.body);
    response.writeHead(result.status, {
      ...result.headers,
      ...NOSNIFF,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    response.end(text);
    return;
  }
  response.writeHead(result.status, { ...result.headers, ...NOSNIFF });
  response.flushHeaders();
  const iterator = result.chunks[Symbol.asyncIterator]();
  let done = false;
  try {
    for (;;) {
      const turn = result.pace?.();
      if (turn) await turn;
      if (signal?.aborted || response.destroyed) break;
      const next = await iterator.next();
      if (next.done) {
        done = true;
        break;
      }
      if (signal?.aborted || response.destroyed) break;
      if (!response.write(next.value)) await drained(response);
    }
  } finally {
    // Stopping early (the client left, a write failed): tell the producer, which aborts the model call.
    if (!done) await iterator.return?.();
    response.end();
  }
}

function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

/**
 * A request answered before its body was read (401, 404, 413, ...) still has bytes on the wire.
 * The whole answer is written at once (so the client can read it while still sending), but the
 * response is ended only once the rest of the body was read and discarded: a "lingering close".
 * Ending first would let node close the connection (at once for `Connection: close` requests), and
 * closing a socket with unread input makes the kernel send a reset, which throws away the answer
 * the client has not read yet. Past DRAIN_LIMIT the connection is cut.
 */
async function lingeringAnswer(
  request: IncomingMessage,
  response: ServerResponse,
  result: Exclude<HttpResult, { kind: 'stream' }>,
): Promise<void> {
  const text = result.kind === 'json' ? JSON.stringify(result.body) : '';
  response.writeHead(result.status, {
    ...result.headers,
    ...NOSNIFF,
    ...(result.kind === 'json' ? { 'content-type': 'application/json; charset=utf-8' } : {}),
    ...(result.status === 204 ? {} : { 'content-length': Buffer.byteLength(text) }),
  });
  // Headers and body leave now, not at end(): write() with nothing would only queue the headers.
  if (text) response.write(text);
  else response.flushHeaders();
  await new Promise<void>((resolve) => {
    let seen = 0;
    const done = () => {
      request.off('data', count);
      resolve();
    };
    const count = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_LIMIT) {
        request.destroy();
        done();
      }
    };
    request.on('data', count);
    request.once('end', done);
    request.once('close', done);
    request.once('error', done);
    request.resume();
  });
  if (!response.destroyed) response.end();
}
