import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../adapters/http/index.js';
import { DOCUMENTS, openFixture, type Fixture } from './fixture.js';
import { LeakWatch } from './leak-watch.js';
import { rawGet } from './raw-http.js';
import { startServer, type RunningServer } from './servers.js';

/**
 * No key is ever returned or logged after creation. Every fixture of the HTTP suite scans its
 * responses and logs (see leak-watch.ts); this file checks the scanner itself catches a leak, then
 * pastes valid keys everywhere a client could put one by mistake.
 */
describe('API key secrets never come back out', () => {
  let fixture: Fixture;
  let server: RunningServer;
  let datastoreId: string;

  beforeAll(async () => {
    fixture = await openFixture();
    server = await startServer('node:http', fixture.handler);
    const datastore = await fixture.ragdesk.datastores.create({ name: 'secrets' }, { ownerId: 'alice' });
    await datastore.upsert(DOCUMENTS);
    datastoreId = datastore.id;
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  it('the watch catches a handler that leaks (a test that cannot fail would prove nothing)', async () => {
    const watch = new LeakWatch();
    const { key } = await fixture.ragdesk.keys.create({ ownerId: 'eve' });
    watch.addSecret(key);
    const real = createHttpHandler(fixture.ragdesk);
    const leaky = Object.assign(
      (request: Parameters<typeof real>[0], response: Parameters<typeof real>[1]) => {
        response.setHeader('x-debug', key.slice(0, 30));
        response.end(`{"oops":"${key}"}`);
      },
      { fetch: (...args: Parameters<typeof real.fetch>) => real.fetch(...args), openapi: () => real.openapi() },
    );
    const wrapped = watch.wrap(leaky);
    const http = createServer(wrapped);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    await (await fetch(`http://127.0.0.1:${(http.address() as AddressInfo).port}/api/x`)).text();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    expect(watch.leaks.length).toBeGreaterThan(0);
    const shaped = new LeakWatch();
    shaped.scan(`a log line with ${key} in it`, 'log');
    expect(shaped.leaks).toHaveLength(1);
  });

  it('keys pasted into paths, query strings, headers and bodies are never echoed', async () => {
    const { key } = await fixture.ragdesk.keys.create({ ownerId: 'alice', scopes: ['admin'] });
    const auth = { authorization: `Bearer ${fixture.alice}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const attempts: { method: string; path: string; headers: Record<string, string>; body?: string }[] = [
      { method: 'GET', path: `/api/datastores/${key}`, headers: auth },
      { method: 'GET', path: `/api/agents/${encodeURIComponent(key)}`, headers: auth },
      { method: 'GET', path: `/api/datasources?datastoreId=${key}`, headers: auth },
      { method: 'GET', path: '/api/datastores', headers: { ...auth, 'x-request-id': key } },
      { method: 'GET', path: '/api/datastores', headers: { authorization: `Bearer ${key} extra` } },
      { method: 'GET', path: '/api/datastores', headers: { authorization: `Basic ${key}` } },
      { method: 'GET', path: '/api/datastores', headers: { authorization: `Bearer ${key}x` } },
      { method: 'GET', path: '/api/datastores', headers: { authorization: key } },
      {
        method: 'POST',
        path: `/api/datastores/${datastoreId}/query`,
        headers: json,
        body: JSON.stringify({ query: 'tides', filters: { datasource_ids: [key] } }),
      },
      { method: 'POST', path: `/api/datastores/${datastoreId}/query`, headers: json, body: JSON.stringify({ query: 'tides', [key]: 1 }) },
      { method: 'POST', path: `/api/datastores/update/${datastoreId}`, headers: json, body: JSON.stringify({ id: key, text: 'x' }) },
      {
        method: 'POST',
        path: '/api/agents',
        headers: json,
        body: JSON.stringify({ name: 'a', description: 'd', tools: [{ type: 'datastore', datastoreId: key }] }),
      },
      { method: 'POST', path: '/api/datastores', headers: json, body: `{"name": "${key}` },
      { method: 'POST', path: '/api/datastores', headers: { ...auth, 'content-type': `text/${key}` }, body: 'x' },
    ];
    for (const attempt of attempts) {
      const response = await fetch(`${server.origin}${attempt.path}`, {
        method: attempt.method,
        headers: attempt.headers,
        ...(attempt.body ? { body: attempt.body } : {}),
      });
      const text = await response.text();
      const label = `${attempt.method} ${attempt.path.slice(0, 60)}`;
      expect(response.status, label).toBeLessThan(500);
      expect(text, label).not.toContain(key.slice(4));
      expect(JSON.stringify([...response.headers]), label).not.toContain(key.slice(4));
    }
    const raw = await rawGet(server.origin, `/api/datastores/${key}`, auth);
    expect(raw.body).toContain('rdk_[redacted]');
    expect(fixture.leaks.leaks).toEqual([]);
    expect(fixture.leaks.scanned).toBeGreaterThan(attempts.length);
  });
});
