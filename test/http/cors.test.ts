import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler, type CorsOptions, type RagdeskHttpHandler } from '../../adapters/http/index.js';
import { openFixture, type Fixture } from './fixture.js';
import { startServer, type RunningServer, type ServerKind } from './servers.js';

const APP = 'https://app.example.com';
const EVIL = 'https://evil.example.net';

function accessControl(headers: Headers): Record<string, string> {
  return Object.fromEntries([...headers].filter(([name]) => name.startsWith('access-control-')));
}

function preflight(origin: string, path: string, headers: Record<string, string>) {
  return fetch(`${origin}${path}`, {
    method: 'OPTIONS',
    headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type', ...headers },
  });
}

describe('CORS', () => {
  let fixture: Fixture;
  const servers: RunningServer[] = [];
  let datastoreId: string;
  let agentId: string;

  async function serve(kind: ServerKind, cors?: CorsOptions): Promise<string> {
    const handler: RagdeskHttpHandler = fixture.watch(createHttpHandler(fixture.ragdesk, cors ? { cors } : {}));
    const server = await startServer(kind, handler);
    servers.push(server);
    return server.origin;
  }

  beforeAll(async () => {
    fixture = await openFixture({ openai: { reply: () => 'The moon.' } });
    const datastore = await fixture.ragdesk.datastores.create({ name: 'cors' }, { ownerId: 'alice' });
    await datastore.upsert([{ text: 'Tides follow the moon.' }]);
    datastoreId = datastore.id;
    agentId = (await fixture.ragdesk.agents.create({ name: 'a', description: 'd', datastoreIds: [datastore.id] }, { ownerId: 'alice' })).id;
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    await fixture?.close();
  });

  it('is off by default: a preflight is a 405 and no response carries Access-Control headers', async () => {
    const origin = await serve('node:http');
    const answer = await preflight(origin, `/api/datastores/${datastoreId}/query`, { origin: APP });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST');
    expect(accessControl(answer.headers)).toEqual({});
    const get = await fetch(`${origin}/api/datastores`, { headers: { origin: APP, authorization: `Bearer ${fixture.alice}` } });
    expect(get.status).toBe(200);
    expect(accessControl(get.headers)).toEqual({});
    expect(get.headers.get('vary')).toBeNull();
  });

  for (const kind of ['node:http', 'hono'] as const) {
    it(`answers preflights for allowed origins before any key check, and refuses others (${kind})`, async () => {
      const origin = await serve(kind, { origins: [APP, 'http://localhost:5173/'], maxAgeSeconds: 120 });
      const allowed = await preflight(origin, `/api/datastores/${datastoreId}`, { origin: APP });
      expect(allowed.status).toBe(204);
      expect(await allowed.text()).toBe('');
      expect(accessControl(allowed.headers)).toEqual({
        'access-control-allow-origin': APP,
        'access-control-allow-methods': 'DELETE, GET, PATCH',
        'access-control-allow-headers': 'authorization, content-type, x-request-id',
        'access-control-max-age': '120',
      });
      expect(allowed.headers.get('vary')).toContain('Origin');
      // A trailing slash in the configuration is normalised; browsers send origins without one.
      const local = await preflight(origin, '/api/datastores', { origin: 'http://localhost:5173' });
      expect(local.status).toBe(204);
      expect(local.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
      expect(local.headers.get('access-control-allow-methods')).toBe('GET, POST');

      for (const refused of [EVIL, `${APP}.evil.net`, 'null', 'https://app.example.com:444', APP.replace('https', 'http')]) {
        const answer = await preflight(origin, `/api/datastores/${datastoreId}`, { origin: refused });
        expect(answer.status, refused).toBe(403);
        expect(accessControl(answer.headers), refused).toEqual({});
        expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('forbidden');
      }
      const noOrigin = await preflight(origin, '/api/datastores', {});
      expect(noOrigin.status).toBe(403);
      const unknownPath = await preflight(origin, '/api/nothing/here', { origin: APP });
      expect(unknownPath.status).toBe(404);
      // OPTIONS that is not a preflight (no Access-Control-Request-Method) is routed as usual.
      const plain = await fetch(`${origin}/api/datastores`, { method: 'OPTIONS', headers: { origin: APP } });
      expect(plain.status).toBe(405);
    });

    it(`adds Access-Control-Allow-Origin to answers, errors and event streams for allowed origins only (${kind})`, async () => {
      const origin = await serve(kind, { origins: [APP] });
      const auth = { authorization: `Bearer ${fixture.alice}` };
      const ok = await fetch(`${origin}/api/datastores/${datastoreId}/query`, {
        method: 'POST',
        headers: { ...auth, origin: APP, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'tides' }),
      });
      expect(ok.status).toBe(200);
      expect(accessControl(ok.headers)).toEqual({
        'access-control-allow-origin': APP,
        'access-control-expose-headers': 'x-request-id, retry-after, x-total-count',
      });
      expect(ok.headers.get('vary')).toBe('Origin');

      const unauthorized = await fetch(`${origin}/api/datastores`, { headers: { origin: APP } });
      expect(unauthorized.status).toBe(401);
      expect(unauthorized.headers.get('access-control-allow-origin')).toBe(APP);

      const stream = await fetch(`${origin}/api/agents/${agentId}/query`, {
        method: 'POST',
        headers: { ...auth, origin: APP, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'tides?', streaming: true }),
      });
      expect(stream.headers.get('content-type')).toBe('text/event-stream');
      expect(stream.headers.get('access-control-allow-origin')).toBe(APP);
      expect(await stream.text()).toContain('data: [DONE]');

      const foreign = await fetch(`${origin}/api/datastores`, { headers: { ...auth, origin: EVIL } });
      expect(foreign.status).toBe(200);
      expect(accessControl(foreign.headers)).toEqual({});
      expect(foreign.headers.get('vary')).toBe('Origin');
    });
  }

  it('supports "*" (no credentials), a predicate, and credentials with listed origins', async () => {
    const any = await serve('node:http', { origins: '*' });
    const wildcard = await preflight(any, '/api/datastores', { origin: EVIL });
    expect(wildcard.status).toBe(204);
    expect(wildcard.headers.get('access-control-allow-origin')).toBe('*');
    const answer = await fetch(`${any}/api/openapi.json`, { headers: { origin: EVIL } });
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(answer.headers.get('vary')).toBeNull();

    const predicate = await serve('node:http', { origins: (value) => value.endsWith('.example.com') });
    expect((await preflight(predicate, '/api/datastores', { origin: APP })).status).toBe(204);
    expect((await preflight(predicate, '/api/datastores', { origin: EVIL })).status).toBe(403);

    const withCredentials = await serve('node:http', { origins: [APP], credentials: true, exposedHeaders: ['x-request-id'] });
    const credentialed = await fetch(`${withCredentials}/api/openapi.json`, { headers: { origin: APP } });
    expect(accessControl(credentialed.headers)).toEqual({
      'access-control-allow-origin': APP,
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': 'x-request-id',
    });
  });

  it('refuses configurations browsers would reject or that are not origins', () => {
    expect(() => createHttpHandler(fixture.ragdesk, { cors: { origins: '*', credentials: true } })).toThrow(
      /cors option credentials cannot/,
    );
    expect(() => createHttpHandler(fixture.ragdesk, { cors: { origins: ['https://app.example.com/path'] } })).toThrow(
      /cors option origins must list origins/,
    );
    expect(() => createHttpHandler(fixture.ragdesk, { cors: { origins: ['app.example.com'] } })).toThrow(
      /cors option origins must list origins/,
    );
    expect(() => createHttpHandler(fixture.ragdesk, { cors: { origins: [APP], allowedHeaders: ['x-ok\r\nset-cookie: a'] } })).toThrow(
      /cors option allowedHeaders must list header names/,
    );
    expect(() => createHttpHandler(fixture.ragdesk, { cors: { origins: [APP], maxAgeSeconds: -1 } })).toThrow(
      /cors option maxAgeSeconds must be a non-negative integer/,
    );
  });
});
