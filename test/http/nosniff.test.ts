/**
 * Every answer of the HTTP adapter says `X-Content-Type-Options: nosniff`: JSON bodies, errors
 * (400, 401, 404 inside and outside the API's path), an early answer to a request whose body is
 * still coming, a CORS preflight's empty 204 and an agent's event stream, on node:http (the node
 * bridge) and on Hono (the fetch bridge). Also here: a crawl pattern the loader cannot match in
 * linear time is a 400 naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../adapters/http/index.js';
import { DOCUMENTS, openFixture, type Fixture } from './fixture.js';
import { startServer, type RunningServer } from './servers.js';

describe.each(['node:http', 'hono'] as const)('X-Content-Type-Options on %s', (kind) => {
  let fixture: Fixture;
  let server: RunningServer;
  let agentId: string;
  let datastoreId: string;

  beforeAll(async () => {
    fixture = await openFixture({ openai: { reply: () => 'Tides follow the moon.' } });
    const handler = fixture.watch(createHttpHandler(fixture.ragdesk, { cors: { origins: ['https://app.test'] } }));
    server = await startServer(kind, handler);
    const datastore = await fixture.ragdesk.datastores.create({ name: 'n' }, { ownerId: 'alice' });
    await datastore.upsert(DOCUMENTS);
    datastoreId = datastore.id;
    const agent = await fixture.ragdesk.agents.create({ name: 'a', description: 'd', datastoreIds: [datastoreId] }, { ownerId: 'alice' });
    agentId = agent.id;
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  const call = (path: string, init: RequestInit & { key?: string | null } = {}) => {
    const { key = fixture.alice, ...rest } = init;
    return fetch(server.origin + path, {
      ...rest,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(rest.headers as Record<string, string> | undefined) },
    });
  };

  it('on JSON answers and on every kind of error', async () => {
    const answers = {
      ok: await call('/api/datastores'),
      unauthenticated: await call('/api/datastores', { key: null }),
      noRoute: await call('/api/no-such-route'),
      badBody: await call('/api/datastores', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }),
      wrongType: await call('/api/datastores', { method: 'POST', headers: { 'content-type': 'text/html' }, body: '<b>x</b>' }),
      preflight: await call('/api/datastores', {
        method: 'OPTIONS',
        key: null,
        headers: { origin: 'https://app.test', 'access-control-request-method': 'POST' },
      }),
    };
    const statuses = Object.fromEntries(Object.entries(answers).map(([name, response]) => [name, response.status]));
    expect(statuses).toEqual({ ok: 200, unauthenticated: 401, noRoute: 404, badBody: 400, wrongType: 415, preflight: 204 });
    for (const [name, response] of Object.entries(answers)) {
      expect(response.headers.get('x-content-type-options'), name).toBe('nosniff');
      await response.arrayBuffer();
    }
  });

  it('on an event stream', async () => {
    const response = await call(`/api/agents/${agentId}/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'What causes tides?', streaming: true }),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.text()).toContain('[DONE]');
  });

  it('refuses a crawl pattern that is not a wildcard with a 400 naming the field', async () => {
    const create = (include: string[]) =>
      call('/api/datasources', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'web_site', datastoreId, config: { source_url: 'https://site.test/', include } }),
      });
    const refused = await create(['/docs/*', '/(a+)+$/']);
    expect(refused.status).toBe(400);
    expect(refused.headers.get('x-content-type-options')).toBe('nosniff');
    const body = (await refused.json()) as { error: { code: string; details: { issues: { path: string; message: string }[] } } };
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.details.issues).toEqual([
      { path: 'config.include.1', message: expect.stringContaining('use a glob where * matches any characters') },
    ]);
  });
});
