import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from './client.js';
import { DOCUMENTS, openFixture, type Fixture } from './fixture.js';
import { OpenApiValidator } from './openapi-validator.js';
import { SERVER_KINDS, startServer, type RunningServer } from './servers.js';
import { openAgentStream } from './sse-client.js';

const LONG_ANSWER = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');

describe.each(SERVER_KINDS)('agent query event streams on %s', (kind) => {
  let fixture: Fixture;
  let server: RunningServer;
  let api: ApiClient;
  let agentId: string;

  beforeAll(async () => {
    // Two queries per owner per day: enough to see the third refused with 402.
    fixture = await openFixture({ agents: { queryLimit: { maxQueries: 3, period: 'day' } } });
    server = await startServer(kind, fixture.handler);
    api = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), fixture.alice);
    const datastore = (await api.post<{ id: string }>('/api/datastores', { name: 'Streams' })).body;
    await api.post(`/api/datastores/upsert/${datastore.id}`, { documents: DOCUMENTS });
    agentId = (
      await api.post<{ id: string }>('/api/agents', {
        name: 'Streamer',
        description: 'd',
        tools: [{ type: 'datastore', datastoreId: datastore.id }],
      })
    ).body.id;
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  it('streams deltas, then the endpoint response, then [DONE]; a failure mid-stream is [ERROR]<code>; the limit is a 402 on open', async () => {
    fixture.openai.configure({ reply: () => 'Tides follow the moon.\nAnd the sun, 100% of the time.' });
    const ok = await openAgentStream(server.origin, agentId, { query: 'What causes tides?' }, fixture.alice).outcome;
    expect([ok.done, ok.refusedWith, ok.errorCode]).toEqual([true, undefined, undefined]);
    expect(ok.deltas.join('')).toBe('Tides follow the moon.\nAnd the sun, 100% of the time.');
    expect(ok.response).toMatchObject({ answer: 'Tides follow the moon.\nAnd the sun, 100% of the time.' });
    api.validator.validate('POST', `/api/agents/${agentId}/query`, 200, 'application/json', ok.response);
    const sources = (ok.response as { sources: { datasource_name: string }[] }).sources;
    expect(sources.map((source) => source.datasource_name)).toContain('tides.md');

    fixture.openai.enqueue({ endpoint: 'chat', kind: 'stream_error', pieces: 2, message: 'model overloaded' });
    const failed = await openAgentStream(server.origin, agentId, { query: 'What causes tides?' }, fixture.alice).outcome;
    expect(failed.done).toBe(false);
    expect(failed.deltas.length).toBe(2);
    expect(failed.errorCode).toBe('upstream_failed');
    expect(fixture.logged.map((entry) => entry.fields.code)).toEqual(['upstream_failed']);

    const third = await openAgentStream(server.origin, agentId, { query: 'What causes tides?' }, fixture.alice).outcome;
    expect(third.done).toBe(true);
    const refused = await openAgentStream(server.origin, agentId, { query: 'What causes tides?' }, fixture.alice).outcome;
    expect(refused.refusedWith).toBe(402);
    expect(refused.deltas).toEqual([]);
    const plain = await api.post<{ error: { code: string } }>(`/api/agents/${agentId}/query`, { query: 'again?', streaming: true });
    expect(plain.status).toBe(402);
    expect(plain.body.error.code).toBe('usage_limit');
  });
});

/** The exact bytes and headers of a response, read with node:http (no client-side parsing at all). */
function rawPost(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; headers: Record<string, unknown>; bytes: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: 'POST', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

describe.each(SERVER_KINDS)('SSE bytes on %s', (kind) => {
  it('are exactly the reference wire format, headers included', async () => {
    const fixture = await openFixture({ openai: { reply: () => 'Line one\nline "two" 100%' } });
    const server = await startServer(kind, fixture.handler);
    try {
      const agent = await fixture.ragdesk.agents.create({ name: 'bytes', description: 'd' }, { ownerId: 'alice' });
      const raw = await rawPost(
        `${server.origin}/api/agents/${agent.id}/query`,
        { authorization: `Bearer ${fixture.alice}`, 'content-type': 'application/json' },
        JSON.stringify({ query: 'hi', streaming: true }),
      );
      expect(raw.status).toBe(200);
      expect(raw.headers['content-type']).toBe('text/event-stream');
      expect(raw.headers['cache-control']).toBe('no-cache, no-transform');
      expect(raw.headers.connection).toBe('keep-alive');
      const frames = raw.bytes.split('\n\n');
      expect(frames.pop()).toBe('');
      expect(frames.pop()).toBe('data: [DONE]');
      const final = frames.pop()!;
      expect(final.startsWith('event: endpoint_response\ndata: ')).toBe(true);
      const response = JSON.parse(decodeURIComponent(final.slice('event: endpoint_response\ndata: '.length))) as { answer: string };
      expect(response.answer).toBe('Line one\nline "two" 100%');
      // Every other frame is one answer delta, URI-encoded so its newline cannot split the frame. A
      // delta's trailing whitespace goes out with the next one: a citation the answer cannot back
      // (`[9]`) may follow it, and would be removed together with the space before it.
      const expected = ['Line', ' one', '\nline', ' "two"', ' 100%'].map((piece) => `event: answer\ndata: ${encodeURIComponent(piece)}`);
      expect(frames).toEqual(expected);
    } finally {
      await server.close();
      await fixture.close();
    }
  });
});

describe.each(SERVER_KINDS)('a client that leaves a stream on %s', (kind) => {
  let fixture: Fixture;
  let server: RunningServer;

  beforeAll(async () => {
    fixture = await openFixture({ openai: { reply: () => LONG_ANSWER, interTokenDelayMs: 20 } });
    server = await startServer(kind, fixture.handler);
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  it('stops the upstream model call (seen as a disconnect at the OpenAI-compatible server)', async () => {
    const agent = await fixture.ragdesk.agents.create({ name: 'Talker', description: 'd' }, { ownerId: 'alice' });
    const stream = openAgentStream(server.origin, agent.id, { query: 'Say a lot' }, fixture.alice);
    await stream.firstDelta;
    stream.close();
    const disconnect = await fixture.openai.nextDisconnect(5_000);
    expect(disconnect.path).toBe('/v1/chat/completions');
    // 200 pieces at 20 ms each would take 4 s; the call was cut long before.
    expect(disconnect.piecesSent).toBeLessThan(100);
  });
});
