import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dispatcher } from './dispatch.js';
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
        response.end();
      } else {
        response.destroy(error instanceof Error ? error : undefined);
      }
    });
  };
}

async function serve(dispatcher: Dispatcher, request: IncomingMessage, response: ServerResponse, next?: (error?: unknown) => void): Promise<void> {
  // Express strips a mount path from `req.url`; `originalUrl` keeps the whole path.
  const url = (request as { originalUrl?: string }).originalUrl ?? request.url ?? '/';
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  const relative = dispatcher.relativePath(path);
  if (relative === null) {
    if (next) return next();
    return writeResult(response, { kind: 'json', status: 404, body: { error: { code: 'not_found', message: `No route for ${request.method ?? 'GET'} ${path.slice(0, 200)}` } } });
  }
  const aborter = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) aborter.abort();
  });
  const result = await dispatcher.handle(toHttpRequest(request, path, queryAt < 0 ? '' : url.slice(queryAt + 1), aborter.signal), relative);
  await writeResult(response, result, aborter.signal);
  drainUnread(request);
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
    // Not destroyed on an early return: the socket must live to carry the error response.
    body: consumed ? null : request.iterator({ destroyOnReturn: false }),
    ...(consumed && parsed !== undefined ? { parsedBody: parsed } : {}),
    signal,
    remoteAddress: request.socket.remoteAddress,
  };
}

async function writeResult(response: ServerResponse, result: HttpResult, signal?: AbortSignal): Promise<void> {
  if (result.kind === 'json') {
    const text = JSON.stringify(result.body);
    response.writeHead(result.status, {
      ...result.headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    response.end(text);
    return;
  }
  response.writeHead(result.status, result.headers);
  response.flushHeaders();
  try {
    for await (const chunk of result.chunks) {
      if (signal?.aborted || response.destroyed) break;
      if (!response.write(chunk)) await drained(response);
    }
  } finally {
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
 * Reading them on keeps the connection usable and lets the client finish sending and see the
 * answer; past a limit the connection is cut instead.
 */
function drainUnread(request: IncomingMessage): void {
  if (request.complete || request.destroyed) return;
  let seen = 0;
  request.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > DRAIN_LIMIT) request.destroy();
  });
  request.resume();
}
