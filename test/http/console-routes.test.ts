import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from './client.js';
import { DOCUMENTS, openFixture, type Fixture } from './fixture.js';
import { OpenApiValidator } from './openapi-validator.js';
import { startServer, type RunningServer } from './servers.js';

interface WireKey {
  id: string;
  ownerId: string;
  name: string;
  prefix: string;
  scopes: string[];
  datastoreIds: string[] | null;
  expiresAt: string | null;
  revokedAt: string | null;
  key?: string;
}

interface ErrorBody {
  error: { code: string; message: string; details: Record<string, unknown> };
}

interface ChunkPage {
  chunks: { id: string; position: number; text: string; page_number: number | null; token_count: number; custom_id: string | null }[];
  total: number;
  offset: number;
  limit: number;
}

/** Long enough for several chunks; "zebra" is in two sentences only, far apart. */
function longText(): string {
  const sentences: string[] = [];
  for (let index = 0; index < 900; index++) {
    sentences.push(index === 10 || index === 850 ? `Sentence ${index} mentions a zebra crossing.` : `Sentence ${index} is about harbours.`);
  }
  return sentences.join(' ');
}

describe('console routes: keys, usage, chunks, datastore totals, datasource paging', () => {
  const clock = { now: Date.parse('2026-11-28T12:00:00Z') };
  let fixture: Fixture;
  let server: RunningServer;
  let api: ApiClient;
  let datastoreId: string;
  let longId: string;

  beforeAll(async () => {
    fixture = await openFixture({
      agents: { queryLimit: { maxQueries: 2, period: 'day' } },
      usage: { maxStoredTokens: 200_000 },
      keys: { now: () => clock.now },
    });
    server = await startServer('node:http', fixture.handler);
    api = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), fixture.alice);
    datastoreId = (await api.post<{ id: string }>('/api/datastores', { name: 'console' })).body.id;
    const upserted = await api.post<{ ids: string[] }>(`/api/datastores/upsert/${datastoreId}`, {
      documents: [...DOCUMENTS, { name: 'long.md', text: longText(), custom_id: 'tenant-7' }],
    });
    longId = upserted.body.ids[3]!;
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  describe('API keys', () => {
    it('creates a key whose secret is answered once and never listed; the new key works', async () => {
      const created = await api.post<WireKey>('/api/keys', { name: 'ci', scopes: ['read', 'query'], datastoreIds: [datastoreId] });
      expect(created.status).toBe(200);
      expect(created.body.key).toMatch(/^rdk_/);
      expect(created.body).toMatchObject({ ownerId: 'alice', name: 'ci', scopes: ['read', 'query'], datastoreIds: [datastoreId] });
      expect(created.body.key!.startsWith(created.body.prefix)).toBe(true);
      const listed = await api.get<WireKey[]>('/api/keys');
      const mine = listed.body.find((key) => key.id === created.body.id);
      expect(mine).toMatchObject({ name: 'ci', prefix: created.body.prefix, revokedAt: null, expiresAt: null });
      expect(listed.text).not.toContain(created.body.key);
      for (const key of listed.body) expect(Object.keys(key)).not.toContain('key');
      expect((await api.get(`/api/datastores/${datastoreId}`, { key: created.body.key! })).status).toBe(200);
    });

    it('refuses a key that would hold more than the calling key, naming the excess', async () => {
      const limited = (
        await api.post<WireKey>('/api/keys', {
          name: 'limited admin',
          scopes: ['admin'],
          datastoreIds: [datastoreId],
          expiresAt: '2026-12-01T00:00:00Z',
        })
      ).body.key!;
      const other = (await api.post<{ id: string }>('/api/datastores', { name: 'other' })).body.id;
      const wider = await api.post<ErrorBody>('/api/keys', { scopes: ['read'], datastoreIds: [datastoreId, other] }, { key: limited });
      expect(wider.status).toBe(403);
      expect(wider.body.error.details).toEqual({
        excess: {
          datastoreIds: [other],
          expiresAt: { requested: null, latest: '2026-12-01T00:00:00.000Z' },
        },
      });
      const everywhere = await api.post<ErrorBody>('/api/keys', { scopes: ['read'], expiresAt: '2026-11-30T00:00:00Z' }, { key: limited });
      expect(everywhere.status).toBe(403);
      expect(everywhere.body.error.details).toEqual({ excess: { datastoreIds: 'all' } });
      const later = await api.post<ErrorBody>(
        '/api/keys',
        { scopes: ['read'], datastoreIds: [datastoreId], expiresAt: '2026-12-02T00:00:00Z' },
        { key: limited },
      );
      expect(later.status).toBe(403);
      const within = await api.post<WireKey>(
        '/api/keys',
        { scopes: ['read', 'query'], datastoreIds: [datastoreId], expiresAt: '2026-11-30T00:00:00Z' },
        { key: limited },
      );
      expect(within.status).toBe(200);
      expect(within.body.expiresAt).toBe('2026-11-30T00:00:00.000Z');

      const reader = (await api.post<WireKey>('/api/keys', { scopes: ['read', 'admin'] })).body;
      const readerAdmin = (await api.post<WireKey>('/api/keys', { scopes: ['admin'], datastoreIds: [datastoreId] })).body.key!;
      // A limited admin may not revoke a key reaching every datastore.
      const revoke = await api.delete<ErrorBody>(`/api/keys/${reader.id}`, { key: readerAdmin });
      expect(revoke.status).toBe(403);
    });

    it('a non-admin key cannot manage keys; scopes must be known; the owner cannot be chosen', async () => {
      const reader = (await api.post<WireKey>('/api/keys', { scopes: ['read', 'write', 'query'] })).body.key!;
      expect((await api.get<ErrorBody>('/api/keys', { key: reader })).status).toBe(403);
      expect((await api.post<ErrorBody>('/api/keys', { scopes: ['read'] }, { key: reader })).status).toBe(403);
      const bad = await api.post<ErrorBody>('/api/keys', { scopes: ['root'], ownerId: 'bob' });
      expect(bad.status).toBe(400);
      expect((bad.body.error.details.issues as { path: string }[]).map((issue) => issue.path).sort()).toEqual(['', 'scopes.0']);
      const past = await api.post<ErrorBody>('/api/keys', { scopes: ['read'], expiresAt: '2026-11-28T11:00:00Z' });
      expect(past.status).toBe(400);
      expect(past.body.error.details).toEqual({ issues: [{ path: 'expiresAt', message: 'must be in the future' }] });
    });

    it("another owner's key and datastore answer exactly like unknown ids", async () => {
      const bobsKey = (await api.post<WireKey>('/api/keys', { name: 'bob ci', scopes: ['read'] }, { key: fixture.bob })).body;
      const unknown = randomUUID();
      const foreign = await api.delete<ErrorBody>(`/api/keys/${bobsKey.id}`);
      const random = await api.delete<ErrorBody>(`/api/keys/${unknown}`);
      expect(foreign.status).toBe(404);
      expect(random.status).toBe(404);
      expect(foreign.body.error.message.replace(bobsKey.id, '<id>')).toBe(random.body.error.message.replace(unknown, '<id>'));
      expect(Object.keys(foreign.body.error.details)).toEqual(Object.keys(random.body.error.details));
      expect((await api.get<WireKey[]>('/api/keys')).body.map((key) => key.id)).not.toContain(bobsKey.id);
      // Bob's key still works.
      expect((await api.get('/api/datastores', { key: bobsKey.key! })).status).toBe(200);

      const bobsDatastore = (await api.post<{ id: string }>('/api/datastores', { name: 'bob' }, { key: fixture.bob })).body.id;
      const withForeign = await api.post<ErrorBody>('/api/keys', { scopes: ['read'], datastoreIds: [bobsDatastore] });
      const withRandom = await api.post<ErrorBody>('/api/keys', { scopes: ['read'], datastoreIds: [unknown] });
      expect(withForeign.status).toBe(404);
      expect(withRandom.status).toBe(404);
      expect(withForeign.body.error.message.replace(bobsDatastore, '<id>')).toBe(withRandom.body.error.message.replace(unknown, '<id>'));
    });

    it('revokes: the key is refused from then on and listed with revokedAt', async () => {
      const created = (await api.post<WireKey>('/api/keys', { name: 'to revoke', scopes: ['read'] })).body;
      const revoked = await api.delete<WireKey>(`/api/keys/${created.id}`);
      expect(revoked.status).toBe(200);
      expect(revoked.body.revokedAt).not.toBeNull();
      expect((await api.get<ErrorBody>('/api/datastores', { key: created.key! })).status).toBe(401);
      expect((await api.get<WireKey[]>('/api/keys')).body.find((key) => key.id === created.id)?.revokedAt).toBe(revoked.body.revokedAt);
    });

    it('an expired key is refused', async () => {
      const created = (await api.post<WireKey>('/api/keys', { scopes: ['read'], expiresAt: '2026-11-28T13:00:00Z' })).body;
      expect((await api.get('/api/datastores', { key: created.key! })).status).toBe(200);
      clock.now = Date.parse('2026-11-28T13:00:00Z');
      try {
        const refused = await api.get<ErrorBody>('/api/datastores', { key: created.key! });
        expect(refused.status).toBe(401);
        expect(refused.body.error.message).toMatch(/expired/);
      } finally {
        clock.now = Date.parse('2026-11-28T12:00:00Z');
      }
    });
  });

  describe('usage', () => {
    it('reports the figures the 402s are decided on', async () => {
      const before = await api.get<{
        agentQueries: { used: number | null; limit: number | null; period: string | null };
        storedTokens: { used: number; limit: number };
        chunks: { used: number };
        datasources: { used: number };
        fileBytes: { used: number };
      }>('/api/usage');
      expect(before.status).toBe(200);
      const sources = (await api.get<{ nbTokens: number; nbChunks: number; type: string }[]>('/api/datasources')).body;
      expect(before.body.storedTokens).toEqual({ used: sources.reduce((sum, source) => sum + source.nbTokens, 0), limit: 200_000 });
      expect(before.body.chunks.used).toBe(sources.reduce((sum, source) => sum + source.nbChunks, 0));
      expect(before.body.datasources.used).toBe(sources.length);
      expect(before.body.agentQueries).toMatchObject({ used: 0, limit: 2, period: 'day' });

      const form = new FormData();
      const bytes = 'Lighthouses guide ships along rocky coasts at night.\n'.repeat(20);
      form.set('type', 'file');
      form.set('datastoreId', datastoreId);
      form.set('file', new Blob([bytes], { type: 'text/plain' }), 'lighthouses.txt');
      const file = (await api.post<{ id: string }>('/api/datasources', undefined, { body: form })).body;
      await fixture.ragdesk.datasources.waitUntilSettled(file.id, 20_000, { ownerId: 'alice' });

      const agent = (
        await api.post<{ id: string }>('/api/agents', { name: 'a', description: 'd', tools: [{ type: 'datastore', datastoreId }] })
      ).body;
      for (let turn = 0; turn < 2; turn++) {
        expect((await api.post(`/api/agents/${agent.id}/query`, { query: 'What causes tides?' })).status).toBe(200);
      }
      const refused = await api.post<ErrorBody>(`/api/agents/${agent.id}/query`, { query: 'And volcanoes?' });
      expect(refused.status).toBe(402);
      const after = await api.get<typeof before.body>('/api/usage');
      expect(after.body.agentQueries).toMatchObject({ used: 2, limit: 2 });
      expect(after.body.agentQueries.used).toBe(refused.body.error.details.used);
      expect(after.body.fileBytes.used).toBe(new TextEncoder().encode(bytes).byteLength);
      expect(after.body.datasources.used).toBe(before.body.datasources.used + 1);
      expect(after.body.storedTokens.used).toBeGreaterThan(before.body.storedTokens.used);
      // Bob's figures are his own.
      const bobs = await api.get<typeof before.body>('/api/usage', { key: fixture.bob });
      expect(bobs.body).toMatchObject({ ownerId: 'bob', agentQueries: { used: 0 }, fileBytes: { used: 0 } });
    });

    it('the stored-token figure is the one a refused upsert names', async () => {
      const small = await openFixture({ usage: { maxStoredTokens: 60 } });
      const smallServer = await startServer('node:http', small.handler);
      try {
        const client = new ApiClient(smallServer.origin, new OpenApiValidator(small.handler.openapi()), small.alice);
        const id = (await client.post<{ id: string }>('/api/datastores', { name: 'small' })).body.id;
        await client.post(`/api/datastores/upsert/${id}`, { documents: DOCUMENTS.slice(0, 2) });
        const usage = (await client.get<{ storedTokens: { used: number; limit: number } }>('/api/usage')).body;
        expect(usage.storedTokens.limit).toBe(60);
        const refused = await client.post<ErrorBody>(`/api/datastores/upsert/${id}`, { documents: [{ text: longText() }] });
        expect(refused.status).toBe(402);
        expect(refused.body.error.details.stored).toBe(usage.storedTokens.used);
      } finally {
        await smallServer.close();
        await small.close();
      }
    });
  });

  describe('chunks of a datasource', () => {
    it('pages in reading order with text, page number, token count, custom_id and id', async () => {
      const first = await api.get<ChunkPage>(`/api/datasources/${longId}/chunks?limit=2`);
      expect(first.status).toBe(200);
      expect(first.body.total).toBeGreaterThan(3);
      expect(first.body.chunks.map((chunk) => chunk.position)).toEqual([0, 1]);
      expect(first.body.chunks[0]).toMatchObject({ page_number: null, custom_id: 'tenant-7' });
      expect(first.body.chunks[0]!.text).toMatch(/^Sentence 0 /);
      expect(first.body.chunks[0]!.token_count).toBeGreaterThan(0);
      const all: ChunkPage['chunks'] = [];
      for (let offset = 0; offset < first.body.total; offset += 2) {
        all.push(...(await api.get<ChunkPage>(`/api/datasources/${longId}/chunks?offset=${offset}&limit=2`)).body.chunks);
      }
      expect(all.map((chunk) => chunk.position)).toEqual([...Array(first.body.total).keys()]);
      expect(new Set(all.map((chunk) => chunk.id)).size).toBe(first.body.total);
      // The same page twice is the same page.
      expect((await api.get<ChunkPage>(`/api/datasources/${longId}/chunks?offset=2&limit=2`)).body.chunks).toEqual(all.slice(2, 4));
    });

    it('filters by text (any case), still in reading order', async () => {
      const found = await api.get<ChunkPage>(`/api/datasources/${longId}/chunks?q=ZEBRA`);
      expect(found.body.total).toBe(2);
      expect(found.body.chunks.every((chunk) => chunk.text.includes('zebra'))).toBe(true);
      expect(found.body.chunks[0]!.position).toBeLessThan(found.body.chunks[1]!.position);
      expect((await api.get<ChunkPage>(`/api/datasources/${longId}/chunks?q=unicorn`)).body).toMatchObject({ total: 0, chunks: [] });
    });

    it('names a bad page parameter; another owner answers like an unknown id', async () => {
      const bad = await api.get<ErrorBody>(`/api/datasources/${longId}/chunks?limit=500`);
      expect(bad.status).toBe(400);
      expect((bad.body.error.details.issues as { path: string }[])[0]!.path).toBe('limit');
      const foreign = await api.get<ErrorBody>(`/api/datasources/${longId}/chunks`, { key: fixture.bob });
      const unknown = await api.get<ErrorBody>(`/api/datasources/no-such-document/chunks`, { key: fixture.bob });
      expect(foreign.status).toBe(404);
      expect(unknown.status).toBe(404);
      expect(foreign.body.error.message.replace(longId, '<id>')).toBe(unknown.body.error.message.replace('no-such-document', '<id>'));
    });
  });

  describe('datastore totals and datasource paging', () => {
    it('sums documents, chunks and tokens of the datastore', async () => {
      const stats = await api.get<{ documents: number; chunks: number; tokens: number; datasources: number; textChars: number }>(
        `/api/datastores/${datastoreId}/stats`,
      );
      const sources = (
        await api.get<{ nbTokens: number; nbChunks: number; textSize: number }[]>(`/api/datasources?datastoreId=${datastoreId}`)
      ).body;
      expect(stats.body).toMatchObject({
        datasources: sources.length,
        documents: sources.length,
        chunks: sources.reduce((sum, source) => sum + source.nbChunks, 0),
        tokens: sources.reduce((sum, source) => sum + source.nbTokens, 0),
        textChars: sources.reduce((sum, source) => sum + source.textSize, 0),
      });
      expect((await api.get(`/api/datastores/${datastoreId}/stats`, { key: fixture.bob })).status).toBe(404);
    });

    it('pages and filters datasources by name, with the number that match', async () => {
      const id = (await api.post<{ id: string }>('/api/datastores', { name: 'many' })).body.id;
      const documents = Array.from({ length: 30 }, (_, index) => ({
        name: `${index % 3 === 0 ? 'Report' : 'note'}-${String(index).padStart(2, '0')}.md`,
        text: `Document ${index}.`,
      }));
      await api.post(`/api/datastores/upsert/${id}`, { documents });
      const page = await api.get<{ name: string }[]>(`/api/datasources?datastoreId=${id}&offset=5&limit=10`);
      expect(page.headers.get('x-total-count')).toBe('30');
      expect(page.body.map((source) => source.name)).toEqual(documents.slice(5, 15).map((document) => document.name));
      const reports = await api.get<{ name: string }[]>(`/api/datasources?datastoreId=${id}&name=rEpOrT&limit=4&offset=4`);
      expect(reports.headers.get('x-total-count')).toBe('10');
      expect(reports.body.map((source) => source.name)).toEqual(['Report-12.md', 'Report-15.md', 'Report-18.md', 'Report-21.md']);
      // groupId: `none` keeps the top-level datasources (all of these); a site id its pages (none here).
      expect((await api.get(`/api/datasources?datastoreId=${id}&groupId=none&limit=1`)).headers.get('x-total-count')).toBe('30');
      expect((await api.get(`/api/datasources?datastoreId=${id}&groupId=${randomUUID()}`)).headers.get('x-total-count')).toBe('0');
      // Without paging parameters the whole list, as before.
      expect((await api.get<unknown[]>(`/api/datasources?datastoreId=${id}`)).body).toHaveLength(30);
      expect((await api.get<ErrorBody>(`/api/datasources?datastoreId=${id}&offset=-1`)).status).toBe(400);
    });
  });
});
