/**
 * A local stand-in for the hosted rerank endpoints, on 127.0.0.1: Cohere (`/v2/rerank`), Jina
 * (`/jina/v1/rerank`), Voyage (`/voyage/v1/rerank`) and TEI (`/rerank`), each with its own field
 * names and answer shape, scoring passages by the query words they share. `script` queues answers
 * (errors, 429 with Retry-After, a request that never answers) for the next requests.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RerankProvider } from '../../adapters/rerank/http-reranker.js';

type Scripted = { status: number; body?: unknown; headers?: Record<string, string> } | { hang: true } | { raw: string };

export interface RerankServer {
  origin: string;
  urlOf(provider: RerankProvider): string;
  /** Bodies and authorization headers received, in order. */
  requests: { path: string; body: Record<string, unknown>; authorization: string | undefined }[];
  script: Scripted[];
  close(): Promise<void>;
}

const PATHS: Record<RerankProvider, string> = {
  cohere: '/v2/rerank',
  jina: '/jina/v1/rerank',
  voyage: '/voyage/v1/rerank',
  tei: '/rerank',
};

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? []);
}

/** Shared query words over the passage's length: enough for a passage that answers to win. */
function score(query: string, passage: string): number {
  const asked = words(query);
  const present = words(passage);
  let shared = 0;
  for (const word of asked) if (present.has(word)) shared++;
  return shared / Math.sqrt(present.size + 1);
}

export async function startRerankServer(): Promise<RerankServer> {
  const requests: RerankServer['requests'] = [];
  const script: Scripted[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      requests.push({ path, body, authorization: request.headers.authorization });
      const next = script.shift();
      if (next && 'hang' in next) return;
      if (next && 'raw' in next) return send(response, 200, next.raw);
      if (next) return send(response, next.status, JSON.stringify(next.body ?? {}), next.headers);
      const provider = (Object.keys(PATHS) as RerankProvider[]).find((name) => PATHS[name] === path);
      if (!provider) return send(response, 404, JSON.stringify({ message: 'not found' }));
      answer(provider, body, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    urlOf: (provider) => origin + PATHS[provider],
    requests,
    script,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(provider: RerankProvider, body: Record<string, unknown>, response: ServerResponse): void {
  const texts = provider === 'tei' ? body.texts : body.documents;
  const query = body.query;
  if (typeof query !== 'string' || !Array.isArray(texts) || (provider !== 'tei' && typeof body.model !== 'string')) {
    // Each provider's error body: Cohere `message`, Jina and Voyage `detail`, TEI `error`.
    const key = provider === 'cohere' ? 'message' : provider === 'tei' ? 'error' : 'detail';
    return send(response, provider === 'tei' ? 422 : 400, JSON.stringify({ [key]: 'invalid request body' }));
  }
  const ranked = (texts as string[])
    .map((text, index) => ({ index, score: score(query, text) }))
    .sort((a, b) => b.score - a.score || a.index - b.index);
  const limit = provider === 'voyage' ? body.top_k : body.top_n;
  const top = typeof limit === 'number' ? ranked.slice(0, limit) : ranked;
  if (provider === 'tei') return send(response, 200, JSON.stringify(ranked.map(({ index, score }) => ({ index, score }))));
  const results = top.map(({ index, score }) => ({ index, relevance_score: score }));
  if (provider === 'voyage')
    return send(response, 200, JSON.stringify({ object: 'list', data: results, model: body.model, usage: { total_tokens: 10 } }));
  if (provider === 'jina') return send(response, 200, JSON.stringify({ model: body.model, results, usage: { total_tokens: 10 } }));
  send(response, 200, JSON.stringify({ id: 'r-1', results, meta: { billed_units: { search_units: 1 } } }));
}

function send(response: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(text);
}
