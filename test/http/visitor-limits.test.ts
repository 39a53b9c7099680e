/**
 * Who pays for a public agent's queries, and how fast its visitors may ask: over HTTP with the real
 * `openai` client talking to the local OpenAI-compatible server. The rate limiters run on a clock
 * the test moves, so no assertion depends on how fast the machine answers.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tokenBucketLimiter } from '../../adapters/http/index.js';
import { takeVisitorTurn } from '../../adapters/http/visitor-limits.js';
import { ApiClient } from './client.js';
import { DOCUMENTS, openFixture, type Fixture } from './fixture.js';
import { OpenApiValidator } from './openapi-validator.js';
import { startServer, type RunningServer } from './servers.js';

interface Answer {
  answer: string;
  conversationId: string;
  visitorId: string;
}
interface ErrorBody {
  error: { code: string; details: Record<string, unknown> };
}

/** A public agent of alice's, and one of bob's, on one fixture with the given limits. */
async function openAgents(fixture: Fixture, api: ApiClient): Promise<{ alices: string; bobs: string }> {
  const datastore = await fixture.ragdesk.datastores.create({ name: 'nature' }, { ownerId: 'alice' });
  await datastore.upsert(DOCUMENTS);
  const create = async (key: string) =>
    (await api.post<{ id: string }>('/api/agents', { name: 'helper', description: 'd', visibility: 'public' }, { key })).body.id;
  return { alices: await create(fixture.alice), bobs: await create(fixture.bob) };
}

describe("a public agent's queries count against its owner", () => {
  let fixture: Fixture;
  let server: RunningServer;
  let api: ApiClient;
  let agents: { alices: string; bobs: string };
  beforeAll(async () => {
    fixture = await openFixture({
      openai: { reply: () => 'The moon.' },
      agents: { queryLimit: { maxQueries: 3, period: 'day' } },
      http: { visitorLimits: false },
    });
    server = await startServer('node:http', fixture.handler);
    api = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), null);
    agents = await openAgents(fixture, api);
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  const ask = (agent: string, key: string | null) =>
    api.post<Answer & ErrorBody>(`/api/agents/${agent}/query`, { query: 'What causes tides?' }, { key });

  it("anonymous visitors and another owner's key spend the owner's limit; the owner then gets 402, the other owner keeps its own", async () => {
    expect((await ask(agents.alices, null)).status).toBe(200);
    expect((await ask(agents.alices, fixture.bob)).status).toBe(200);
    expect((await ask(agents.alices, fixture.alice)).status).toBe(200);
    const spent = await ask(agents.alices, fixture.alice);
    expect(spent.status).toBe(402);
    expect(spent.body.error.code).toBe('usage_limit');
    expect(spent.body.error.details).toMatchObject({ ownerId: 'alice', limit: 3, used: 3 });
    // Strangers meet the same limit: the owner's quota is the agent's.
    expect((await ask(agents.alices, null)).status).toBe(402);
    expect((await ask(agents.alices, fixture.bob)).status).toBe(402);
    // Bob's query to alice's agent cost bob nothing: his own agent still has his three.
    for (let i = 0; i < 3; i++) expect((await ask(agents.bobs, fixture.bob)).status).toBe(200);
    expect((await ask(agents.bobs, fixture.bob)).status).toBe(402);
  });
});

describe('visitor rate limits', () => {
  let fixture: Fixture;
  let server: RunningServer;
  let api: ApiClient;
  let agents: { alices: string; bobs: string };
  let now = 0;
  beforeAll(async () => {
    fixture = await openFixture({
      openai: { reply: () => 'The moon.' },
      agents: { queryLimit: { maxQueries: 1_000, period: 'day' } },
      http: {
        visitorLimits: {
          queries: tokenBucketLimiter({ ratePerSecond: 1, burst: 4, now: () => now }),
          conversations: tokenBucketLimiter({ ratePerSecond: 1 / 60, burst: 2, now: () => now }),
        },
      },
    });
    server = await startServer('node:http', fixture.handler);
    api = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), null);
    agents = await openAgents(fixture, api);
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });
  // Each test starts with full buckets: an hour later on the limiters' clock.
  beforeEach(() => void (now += 3_600_000));

  const ask = (body: Record<string, unknown>, key: string | null = null, agent = agents.alices) =>
    api.post<Answer & ErrorBody>(`/api/agents/${agent}/query`, { query: 'What causes tides?', ...body }, { key });

  function expectLimited(response: { status: number; body: ErrorBody; headers: Headers }, limit: string, retryAfter: number): void {
    expect(response.status).toBe(429);
    expect(response.body.error.code).toBe('rate_limited');
    expect(response.body.error.details.limit).toBe(limit);
    expect(response.headers.get('retry-after')).toBe(String(retryAfter));
  }

  it('a visitor starts so many new conversations, then 429 with Retry-After; continuing one goes on', async () => {
    const first = await ask({});
    expect(first.status).toBe(200);
    expect((await ask({})).status).toBe(200);
    expectLimited(await ask({}), 'new conversations', 60);
    // The first conversation continues: no new one is started.
    const again = await ask({ conversationId: first.body.conversationId, visitorId: first.body.visitorId });
    expect(again.status).toBe(200);
    expect(again.body.conversationId).toBe(first.body.conversationId);
    now += 30_000;
    expectLimited(await ask({}), 'new conversations', 30);
    now += 30_000;
    expect((await ask({})).status).toBe(200);
  });

  it("visitors' queries (anonymous and another owner's key) are limited per address; the owner is not", async () => {
    const first = await ask({});
    const visitor = { conversationId: first.body.conversationId, visitorId: first.body.visitorId };
    for (let i = 0; i < 2; i++) expect((await ask(visitor, fixture.bob)).status).toBe(200);
    expect((await ask(visitor)).status).toBe(200);
    expectLimited(await ask(visitor), 'queries', 1);
    expectLimited(await ask(visitor, fixture.bob), 'queries', 1);
    for (let i = 0; i < 6; i++) expect((await ask({}, fixture.alice)).status).toBe(200);
    now += 1_000;
    expect((await ask(visitor)).status).toBe(200);
  });

  it('a refused query or conversation stores nothing and costs the owner nothing', async () => {
    const db = new Database(join(fixture.dir, 'ragdesk.db'), { readonly: true });
    const count = () => ({
      conversations: (db.prepare('SELECT count(*) AS n FROM conversations WHERE agent_id = ?').get(agents.alices) as { n: number }).n,
      queries: (db.prepare("SELECT coalesce(sum(used), 0) AS n FROM usage_counters WHERE subject = 'alice'").get() as { n: number }).n,
    });
    try {
      expect((await ask({ visitorId: 'v-1' })).status).toBe(200);
      expect((await ask({ visitorId: 'v-1' })).status).toBe(200);
      const before = count();
      expect((await ask({ visitorId: 'v-1' })).status).toBe(429);
      const first = await ask({ visitorId: 'v-2' }, fixture.bob);
      expect(first.status).toBe(429);
      expect(count()).toEqual(before);
    } finally {
      db.close();
    }
  });
});

describe('takeVisitorTurn', () => {
  it('limits a visitor id across addresses and an address across visitor ids', async () => {
    let now = 0;
    const limiter = tokenBucketLimiter({ ratePerSecond: 1, burst: 2, now: () => now });
    await takeVisitorTurn(limiter, { address: '10.0.0.1', visitorId: 'v' }, 'queries');
    await takeVisitorTurn(limiter, { address: '10.0.0.2', visitorId: 'v' }, 'queries');
    // A third address, the same visitor id: refused on the id.
    await expect(takeVisitorTurn(limiter, { address: '10.0.0.3', visitorId: 'v' }, 'queries')).rejects.toMatchObject({
      code: 'rate_limited',
      details: { limit: 'queries', retryAfterSeconds: 1 },
    });
    // The first address, new visitor ids: refused on the address once its burst is spent.
    await takeVisitorTurn(limiter, { address: '10.0.0.1', visitorId: 'w' }, 'queries');
    await expect(takeVisitorTurn(limiter, { address: '10.0.0.1', visitorId: 'x' }, 'queries')).rejects.toMatchObject({
      code: 'rate_limited',
    });
    now += 1_000;
    await takeVisitorTurn(limiter, { address: '10.0.0.3', visitorId: 'v' }, 'queries');
  });
});
