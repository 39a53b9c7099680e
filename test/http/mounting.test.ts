import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../adapters/http/index.js';
import { openFixture, type Fixture } from './fixture.js';

async function listen(server: Server): Promise<{ origin: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('mounting variants', () => {
  let fixture: Fixture;
  let datastoreId: string;
  beforeAll(async () => {
    fixture = await openFixture();
    const datastore = await fixture.ragdesk.datastores.create({ name: 'mounts' }, { ownerId: 'alice' });
    await datastore.upsert([{ text: 'Tides are caused by the moon.', name: 'tides' }]);
    datastoreId = datastore.id;
  });
  afterAll(() => fixture?.close());

  const query = (origin: string, path = `/api/datastores/${datastoreId}/query`) =>
    fetch(`${origin}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fixture.alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'tides', topK: 1 }),
    });

  it('Express with express.json() in front uses the parsed body; other paths reach the app', async () => {
    const app = express();
    app.use(express.json());
    app.use(fixture.handler);
    app.get('/health', (_request, response) => {
      response.json({ ok: true });
    });
    const server = await listen(createServer(app));
    try {
      const response = await query(server.origin);
      expect(response.status).toBe(200);
      expect(((await response.json()) as { datasource_name: string }[])[0]?.datasource_name).toBe('tides');
      expect(await (await fetch(`${server.origin}/health`)).json()).toEqual({ ok: true });
      const form = new FormData();
      form.set('file', new Blob(['Some notes about comets.'], { type: 'text/plain' }), 'comets.txt');
      const upload = await fetch(`${server.origin}/api/external/datastores/file-upload/${datastoreId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fixture.alice}` },
        body: form,
      });
      expect(upload.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('Express app.use("/api", handler) keeps the full path (originalUrl)', async () => {
    const app = express();
    app.use('/api', fixture.handler);
    const server = await listen(createServer(app));
    try {
      expect((await query(server.origin)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('refuses a bad basePath, body limit, CORS origin, console path or configured key with invalid_request naming the option', () => {
    const refusal = (path: string): unknown =>
      expect.objectContaining({ code: 'invalid_request', details: { issues: [expect.objectContaining({ path })] } });
    expect(() => createHttpHandler(fixture.ragdesk, { basePath: 'api' })).toThrow(refusal('basePath'));
    expect(() => createHttpHandler(fixture.ragdesk, { maxJsonBytes: 0 })).toThrow(refusal('maxJsonBytes'));
    expect(() => createHttpHandler(fixture.ragdesk, { maxFileBytes: 1.5 })).toThrow(refusal('maxFileBytes'));
    expect(() => createHttpHandler(fixture.ragdesk, { cors: { origins: ['app.example.com'] } })).toThrow(refusal('origins'));
    expect(() => createHttpHandler(fixture.ragdesk, { ui: { basePath: 'console' } })).toThrow(refusal('basePath'));
    // A configured key too short to be a secret: refused without echoing it.
    const keyed = () => createHttpHandler(fixture.ragdesk, { apiKeys: [{ key: 'short-secret', ownerId: 'alice' }] });
    expect(keyed).toThrow(refusal('keys[0].key'));
    expect(keyed).not.toThrow(/short-secret/);
  });

  it('a basePath mounts elsewhere; outside it node:http gets a JSON 404', async () => {
    const handler = fixture.watch(createHttpHandler(fixture.ragdesk, { basePath: '/v2/rag' }));
    const server = await listen(createServer(handler));
    try {
      expect((await query(server.origin, `/v2/rag/datastores/${datastoreId}/query`)).status).toBe(200);
      const outside = await query(server.origin);
      expect(outside.status).toBe(404);
      expect(((await outside.json()) as { error: { code: string } }).error.code).toBe('not_found');
      const document = (await (await fetch(`${server.origin}/v2/rag/openapi.json`)).json()) as { paths: Record<string, unknown> };
      expect(Object.keys(document.paths)).toContain('/v2/rag/agents/{id}/query');
    } finally {
      await server.close();
    }
  });

  it('a real bug is a 500 with the request id in the body, the header and the log, and no internals', async () => {
    const logged: Record<string, unknown>[] = [];
    const broken = Object.create(fixture.ragdesk) as typeof fixture.ragdesk;
    Object.defineProperty(broken, 'datastores', {
      value: Object.assign(Object.create(fixture.ragdesk.datastores) as object, {
        list: () => Promise.reject(new TypeError('secret internal detail')),
      }),
    });
    const handler = createHttpHandler(broken, { logger: { error: (_message, fields) => logged.push(fields) } });
    const response = await handler.fetch(
      new Request('http://local/api/datastores', { headers: { authorization: `Bearer ${fixture.alice}`, 'x-request-id': 'trace-123' } }),
    );
    expect(response.status).toBe(500);
    expect(response.headers.get('x-request-id')).toBe('trace-123');
    const text = await response.text();
    expect(text).not.toContain('secret internal detail');
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'internal', details: { requestId: 'trace-123' } } });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ requestId: 'trace-123', route: 'GET /datastores', code: 'internal' });
    expect(String(logged[0]!.error)).toContain('secret internal detail');
  });
});
