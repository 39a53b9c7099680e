import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFixture, type Fixture } from '../http/fixture.js';
import { startServer, type RunningServer } from '../http/servers.js';

interface ErrorBody {
  error: { code: string; message: string; details: unknown };
}

describe('every error body carries details (an object)', () => {
  let fixture: Fixture;
  let server: RunningServer;

  beforeAll(async () => {
    fixture = await openFixture();
    server = await startServer('node:http', fixture.handler);
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  it.each([
    ['unknown route', 'GET', '/api/nothing', {}, 404, 'not_found'],
    ['outside the base path', 'GET', '/elsewhere', {}, 404, 'not_found'],
    ['no key', 'GET', '/api/datastores', {}, 401, 'unauthorized'],
    ['unknown key', 'GET', '/api/datastores', { authorization: 'Bearer not-a-key-at-all' }, 401, 'unauthorized'],
    ['malformed Authorization', 'GET', '/api/datastores', { authorization: 'Basic abc' }, 401, 'unauthorized'],
    ['wrong method', 'PUT', '/api/datastores', {}, 405, 'method_not_allowed'],
  ])('%s', async (_name, method, path, headers, status, code) => {
    const response = await fetch(`${server.origin}${path}`, { method, headers });
    const body = (await response.json()) as ErrorBody;
    expect(response.status).toBe(status);
    expect(body.error.code).toBe(code);
    expect(typeof body.error.details === 'object' && body.error.details !== null && !Array.isArray(body.error.details)).toBe(true);
  });
});
