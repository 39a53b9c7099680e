/**
 * An agent's allowed origins (`interfaceConfig.authorizedDomains`) on its public routes, over real
 * HTTP on 127.0.0.1: listed sites get CORS headers and answers without the handler's `cors`
 * option, other sites a 403 `origin_not_allowed` (readable by the widget), requests without an
 * `Origin` and the server's own pages as before; the list is checked on create and update.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../adapters/http/index.js';
import { RagdeskError } from '../../src/index.js';
import { openFixture, type Fixture } from './fixture.js';
import { startServer, type RunningServer } from './servers.js';

const SITE = 'https://shop.example';
const BARE_HOST_SITE = 'https://docs.example';
const GLOBAL = 'https://app.example.com';
const EVIL = 'https://evil.example.net';

interface ErrorBody {
  error: { code: string; message: string; details: Record<string, unknown> };
}

describe("an agent's allowed origins on its public routes", () => {
  let fixture: Fixture;
  let server: RunningServer;
  let withCors: RunningServer;
  let agentId: string;
  let privateId: string;

  const call = (base: string, path: string, init: RequestInit & { origin?: string; key?: string } = {}) => {
    const { origin, key, headers, ...rest } = init;
    return fetch(`${base}/api${path}`, {
      ...rest,
      headers: {
        ...(origin ? { origin } : {}),
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(rest.body ? { 'content-type': 'application/json' } : {}),
        ...(headers as Record<string, string> | undefined),
      },
    });
  };
  const ask = (base: string, origin: string | undefined, body: Record<string, unknown> = { query: 'What follows the moon?' }) =>
    call(base, `/agents/${agentId}/query`, { method: 'POST', body: JSON.stringify(body), ...(origin ? { origin } : {}) });

  beforeAll(async () => {
    fixture = await openFixture({ openai: { reply: () => 'Tides follow the moon.' } });
    const datastore = await fixture.ragdesk.datastores.create({ name: 'tides' }, { ownerId: 'alice' });
    await datastore.upsert([{ text: 'Tides follow the moon.' }]);
    const interfaceConfig = { displayName: 'Tide desk', authorizedDomains: [SITE, 'docs.example'] };
    agentId = (
      await fixture.ragdesk.agents.create(
        { name: 'tides', description: 'd', visibility: 'public', datastoreIds: [datastore.id], interfaceConfig },
        { ownerId: 'alice' },
      )
    ).id;
    privateId = (
      await fixture.ragdesk.agents.create(
        { name: 'private', description: 'd', datastoreIds: [datastore.id], interfaceConfig },
        { ownerId: 'alice' },
      )
    ).id;
    server = await startServer('node:http', fixture.handler);
    withCors = await startServer('node:http', fixture.watch(createHttpHandler(fixture.ragdesk, { cors: { origins: [GLOBAL] } })));
  });

  afterAll(async () => {
    await server?.close();
    await withCors?.close();
    await fixture?.close();
  });

  it('a listed origin gets the agent and an answer with its CORS headers, without the cors option', async () => {
    for (const origin of [SITE, BARE_HOST_SITE]) {
      const read = await call(server.origin, `/agents/${agentId}`, { origin });
      expect(read.status, origin).toBe(200);
      expect(read.headers.get('access-control-allow-origin')).toBe(origin);
      expect(read.headers.get('vary')).toContain('Origin');
      expect(((await read.json()) as { interfaceConfig: { displayName: string } }).interfaceConfig.displayName).toBe('Tide desk');
    }
    const answer = await ask(server.origin, SITE);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe(SITE);
    expect(answer.headers.get('access-control-expose-headers')).toContain('x-request-id');
    expect(((await answer.json()) as { answer: string }).answer).toBe('Tides follow the moon.');

    const stream = await ask(server.origin, SITE, { query: 'And the sun?', streaming: true });
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    expect(stream.headers.get('access-control-allow-origin')).toBe(SITE);
    expect(await stream.text()).toContain('data: [DONE]');
  });

  it('another origin gets a 403 origin_not_allowed it can read, and the agent is not asked', async () => {
    const before = fixture.openai.chatRequests().length;
    for (const origin of [EVIL, 'http://shop.example', 'https://shop.example:8443', 'https://sub.shop.example', 'null']) {
      const refused = await ask(server.origin, origin);
      expect(refused.status, origin).toBe(403);
      const body = (await refused.json()) as ErrorBody;
      expect(body.error.code).toBe('origin_not_allowed');
      expect(body.error.details).toEqual({ origin });
      // The refusal carries the origin so the widget can read the code (adapters/http/agent-origins.ts).
      expect(refused.headers.get('access-control-allow-origin')).toBe(origin);
    }
    const read = await call(server.origin, `/agents/${agentId}`, { origin: EVIL });
    expect(read.status).toBe(403);
    expect(((await read.json()) as ErrorBody).error.code).toBe('origin_not_allowed');
    expect(fixture.openai.chatRequests().length).toBe(before);
    // An unknown agent answers a cross-site page like an unlisting one: its existence is not told.
    const unknown = await call(server.origin, '/agents/00000000-0000-4000-8000-000000000000', { origin: SITE });
    expect(unknown.status).toBe(403);
    expect(((await unknown.json()) as ErrorBody).error.code).toBe('origin_not_allowed');
  });

  it('requests without an Origin and from the server itself work as before, without CORS headers', async () => {
    const plain = await ask(server.origin, undefined);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
    // The same URL answers differently per Origin: a shared cache must not hand this answer to a page.
    expect(plain.headers.get('vary')).toBe('Origin');
    const samePage = await ask(server.origin, server.origin);
    expect(samePage.status).toBe(200);
    expect(samePage.headers.get('access-control-allow-origin')).toBeNull();
    // Behind a proxy that rewrites Host, the forwarded host (or the browser's Sec-Fetch-Site) says it is the same site.
    const proxied = await call(server.origin, `/agents/${agentId}`, {
      origin: 'https://ragdesk.example',
      headers: { 'x-forwarded-host': 'ragdesk.example' },
    });
    expect(proxied.status).toBe(200);
    const fetchSite = await call(server.origin, `/agents/${agentId}`, {
      origin: 'https://ragdesk.example',
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(fetchSite.status).toBe(200);
    // Routes that are not an agent's public ones are untouched.
    const datastores = await call(server.origin, '/datastores', { origin: EVIL, key: fixture.alice });
    expect(datastores.status).toBe(200);
    expect(datastores.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers preflights of the query and feedback routes for listed origins only', async () => {
    const preflight = (path: string, origin: string) =>
      fetch(`${server.origin}/api${path}`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
    const allowed = await preflight(`/agents/${agentId}/query`, SITE);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(SITE);
    expect(allowed.headers.get('access-control-allow-methods')).toBe('POST');
    expect(allowed.headers.get('access-control-allow-headers')).toContain('content-type');
    expect(allowed.headers.get('vary')).toContain('Origin');
    const refused = await preflight(`/agents/${agentId}/query`, EVIL);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as ErrorBody).error.code).toBe('origin_not_allowed');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();

    const answer = (await (await ask(server.origin, undefined)).json()) as { messageId: string };
    expect((await preflight(`/messages/${answer.messageId}/feedback`, SITE)).status).toBe(204);
    expect((await preflight(`/messages/${answer.messageId}/feedback`, EVIL)).status).toBe(403);
    // Elsewhere, without the cors option, a preflight is routed as before (405).
    expect((await preflight('/datastores', SITE)).status).toBe(405);
  });

  it("a visitor's conversation and feedback from a listed site, not from another", async () => {
    const first = (await (await ask(server.origin, SITE)).json()) as { conversationId: string; visitorId: string; messageId: string };
    const path = `/conversations/${first.conversationId}?visitorId=${encodeURIComponent(first.visitorId)}`;
    const read = await call(server.origin, path, { origin: SITE });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBe(SITE);
    expect((await call(server.origin, path, { origin: EVIL })).status).toBe(403);

    const mark = (origin: string) =>
      call(server.origin, `/messages/${first.messageId}/feedback`, {
        method: 'POST',
        origin,
        body: JSON.stringify({ eval: 'good', visitorId: first.visitorId }),
      });
    const refused = await mark(EVIL);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as ErrorBody).error.code).toBe('origin_not_allowed');
    const marked = await mark(SITE);
    expect(marked.status).toBe(200);
    expect(marked.headers.get('access-control-allow-origin')).toBe(SITE);
    expect(((await marked.json()) as { eval: string }).eval).toBe('good');
  });

  it('the cors option keeps allowing its origins on every route; the agent adds its own', async () => {
    const global = await ask(withCors.origin, GLOBAL);
    expect(global.status).toBe(200);
    expect(global.headers.get('access-control-allow-origin')).toBe(GLOBAL);
    const listed = await ask(withCors.origin, SITE);
    expect(listed.status).toBe(200);
    expect(listed.headers.get('access-control-allow-origin')).toBe(SITE);
    const refused = await ask(withCors.origin, EVIL);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as ErrorBody).error.code).toBe('origin_not_allowed');
    // A listed site reaching a private agent without a key is told to bring one, readably.
    const privateRead = await call(withCors.origin, `/agents/${privateId}`, { origin: SITE });
    expect(privateRead.status).toBe(401);
    expect(privateRead.headers.get('access-control-allow-origin')).toBe(SITE);
  });

  it('checks the settings on update and create, naming the field, and only for the owner', async () => {
    const update = (interfaceConfig: Record<string, unknown>, key = fixture.alice) =>
      call(server.origin, `/agents/${agentId}`, { method: 'PATCH', key, body: JSON.stringify({ description: 'd', interfaceConfig }) });
    const cases: [Record<string, unknown>, string][] = [
      [{ authorizedDomains: ['*'] }, 'interfaceConfig.authorizedDomains.0'],
      [{ authorizedDomains: [SITE, 'https://shop.example/widget'] }, 'interfaceConfig.authorizedDomains.1'],
      [{ authorizedDomains: ['*.shop.example'] }, 'interfaceConfig.authorizedDomains.0'],
      [{ authorizedDomains: ['ftp://shop.example'] }, 'interfaceConfig.authorizedDomains.0'],
      [{ iconUrl: 'javascript:alert(1)' }, 'interfaceConfig.iconUrl'],
      [{ iconUrl: 'data:text/html;base64,PHNjcmlwdD4=' }, 'interfaceConfig.iconUrl'],
      [{ primaryColor: 'red;}</style>' }, 'interfaceConfig.primaryColor'],
      [{ position: 'top' }, 'interfaceConfig.position'],
      [{ messageTemplates: 'not a list' }, 'interfaceConfig.messageTemplates'],
    ];
    for (const [config, path] of cases) {
      const answer = await update(config);
      expect(answer.status, JSON.stringify(config)).toBe(400);
      const body = (await answer.json()) as ErrorBody;
      expect(body.error.code).toBe('invalid_request');
      expect((body.error.details.issues as { path: string }[]).map((issue) => issue.path)).toContain(path);
      expect(body.error.message).toContain(path);
    }
    const good = {
      displayName: 'Tide desk',
      primaryColor: '#0b7285',
      iconUrl: 'data:image/png;base64,iVBORw0KGgo=',
      messageTemplates: ['When is high tide?'],
      position: 'left',
      authorizedDomains: [SITE, 'docs.example', 'http://localhost:5173'],
    };
    const saved = await update(good);
    expect(saved.status).toBe(200);
    expect(((await saved.json()) as { interfaceConfig: unknown }).interfaceConfig).toEqual(good);
    expect((await ask(server.origin, 'http://localhost:5173')).status).toBe(200);

    // Another owner's key cannot change it, and is answered as for an unknown agent.
    const stranger = await update({ authorizedDomains: [EVIL] }, fixture.bob);
    expect(stranger.status).toBe(404);
    expect(((await stranger.json()) as ErrorBody).error.code).toBe('not_found');
    expect((await ask(server.origin, EVIL)).status).toBe(403);

    // The library checks the same on create.
    const created = fixture.ragdesk.agents.create(
      { name: 'x', description: 'd', interfaceConfig: { authorizedDomains: ['*'] } },
      { ownerId: 'alice' },
    );
    await expect(created).rejects.toSatisfy(
      (error: unknown) => RagdeskError.isInstance(error) && error.code === 'invalid_request' && error.message.includes('authorizedDomains'),
    );
  });
});
