import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenBucketLimiter } from '../../adapters/http/index.js';
import { ApiClient } from './client.js';
import { openFixture, type Fixture } from './fixture.js';
import { OpenApiValidator } from './openapi-validator.js';
import { startServer, type RunningServer } from './servers.js';

describe('tokenBucketLimiter', () => {
  it('allows a burst, then the sustained rate, per caller', () => {
    let now = 0;
    const limiter = tokenBucketLimiter({ ratePerSecond: 2, burst: 3, now: () => now });
    const take = (caller: string) => limiter.take(caller) as { allowed: boolean; retryAfterSeconds?: number };
    expect([1, 2, 3, 4].map(() => take('a').allowed)).toEqual([true, true, true, false]);
    expect(take('b').allowed).toBe(true);
    const refused = take('a');
    expect(refused.retryAfterSeconds).toBeCloseTo(0.5, 5);
    now += 500;
    expect(take('a').allowed).toBe(true);
    expect(take('a').allowed).toBe(false);
    now += 10_000;
    expect([1, 2, 3, 4].map(() => take('a').allowed)).toEqual([true, true, true, false]);
  });

  it('refuses a bad rate or burst with invalid_request naming the option', () => {
    const refusal = (path: string): unknown =>
      expect.objectContaining({ code: 'invalid_request', details: { issues: [expect.objectContaining({ path })] } });
    expect(() => tokenBucketLimiter({ ratePerSecond: 0 })).toThrow(refusal('ratePerSecond'));
    expect(() => tokenBucketLimiter({ ratePerSecond: Number.POSITIVE_INFINITY })).toThrow(refusal('ratePerSecond'));
    expect(() => tokenBucketLimiter({} as { ratePerSecond: number })).toThrow(refusal('ratePerSecond'));
    expect(() => tokenBucketLimiter({ ratePerSecond: 1, burst: 0.5 })).toThrow(refusal('burst'));
  });
});

describe('rate limiting over HTTP', () => {
  let fixture: Fixture;
  let server: RunningServer;
  beforeAll(async () => {
    fixture = await openFixture({ http: { rateLimiter: tokenBucketLimiter({ ratePerSecond: 0.5, burst: 2 }) } });
    server = await startServer('node:http', fixture.handler);
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  it('answers 429 with Retry-After once a caller spent its burst; other callers are not affected', async () => {
    const api = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), fixture.alice);
    expect((await api.get('/api/datastores')).status).toBe(200);
    expect((await api.get('/api/datastores')).status).toBe(200);
    const limited = await api.get<{ error: { code: string } }>('/api/datastores');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await api.get('/api/datastores', { key: fixture.bob })).status).toBe(200);
  });

  it('counts refused keys against the client address, so guessing keys is limited too', async () => {
    const api = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), null);
    const guess = () => api.get<{ error: { code: string } }>('/api/datastores', { key: `rdk_${crypto.randomUUID()}_${'A'.repeat(43)}` });
    expect((await guess()).status).toBe(401);
    expect((await guess()).status).toBe(401);
    const limited = await guess();
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Requests without a key share that address bucket; a valid key has its own.
    expect((await api.get('/api/datastores')).status).toBe(429);
    const carol = (await fixture.ragdesk.keys.create({ ownerId: 'carol' })).key;
    expect((await api.get('/api/datastores', { key: carol })).status).toBe(200);
  });
});
