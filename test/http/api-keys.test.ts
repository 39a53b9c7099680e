import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { localEmbeddings } from '../../adapters/local/index.js';
import { exactIndex, memoryStores } from '../../adapters/memory/index.js';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import { createRagdesk, RagdeskError, type AccountStore, type Ragdesk } from '../../src/index.js';
import { tempDir } from '../helpers/setups.js';

/** Counts `updateApiKey` calls reaching the real account store. */
function countingStore(inner: AccountStore): AccountStore & { keyWrites: number } {
  const counted = Object.create(inner) as AccountStore & { keyWrites: number };
  counted.keyWrites = 0;
  counted.updateApiKey = (id, patch) => {
    counted.keyWrites++;
    return inner.updateApiKey(id, patch);
  };
  return counted;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

for (const kind of ['sqlite', 'memory'] as const) {
  describe(`ragdesk.keys on the ${kind} store`, () => {
    function open(touchIntervalMs?: number): { ragdesk: Ragdesk; store: AccountStore & { keyWrites: number } } {
      const temp = tempDir('ragdesk-keys-');
      const { retrieval, accounts } = kind === 'sqlite' ? sqliteStores({ path: join(temp.dir, 'ragdesk.db') }) : memoryStores();
      const store = countingStore(accounts);
      const ragdesk = createRagdesk({
        retrieval,
        accounts: store,
        index: exactIndex(),
        embeddings: localEmbeddings(),
        ...(touchIntervalMs === undefined ? {} : { keys: { touchIntervalMs } }),
      });
      cleanups.push(
        () => ragdesk.close(),
        () => temp.remove(),
      );
      return { ragdesk, store };
    }

    it('creates a recognisable secret carrying its key id; stores only a salted HMAC and a short prefix', async () => {
      const { ragdesk, store } = open();
      const created = await ragdesk.keys.create({ ownerId: 'alice', name: ' ci ', scopes: ['read', 'query'] });
      expect(created.key).toMatch(/^rdk_[0-9a-f-]{36}_[A-Za-z0-9_-]{43}$/);
      expect(created.key.slice(4, 40)).toBe(created.apiKey.id);
      expect(created.apiKey).toMatchObject({
        ownerId: 'alice',
        name: 'ci',
        scopes: ['read', 'query'],
        datastoreIds: null,
        lastUsedAt: null,
        revokedAt: null,
      });
      expect(created.apiKey.prefix).toBe(created.key.slice(0, 12));
      expect(created.apiKey).not.toHaveProperty('hash');
      // Checked in the store itself, not through the service: HMAC-SHA256 under the record's own salt.
      const stored = (await store.getApiKey(created.apiKey.id))!;
      const [scheme, salt, digest] = stored.hash.split(':');
      expect(scheme).toBe('hmac-sha256');
      expect(salt).toMatch(/^[0-9a-f]{32}$/);
      expect(digest).toBe(createHmac('sha256', Buffer.from(salt!, 'hex')).update(created.key).digest('hex'));
      // Not findable by the plain SHA-256 of the secret (what keys were stored as before).
      expect(await store.findApiKeyByHash(createHash('sha256').update(created.key).digest('hex'))).toBeNull();
      const listed = JSON.stringify(await store.listApiKeys());
      expect(listed).not.toContain(created.key);
      expect(listed).not.toContain(created.key.slice(41));
      const other = await ragdesk.keys.create({ ownerId: 'alice' });
      expect(other.key).not.toBe(created.key);
      expect(other.apiKey.scopes).toEqual(['read', 'write', 'query']);
      // Two keys never share a salt, so equal stored digests cannot even arise.
      expect((await store.getApiKey(other.apiKey.id))!.hash.split(':')[1]).not.toBe(salt);
    });

    it('keeps verifying keys stored in the earlier format (plain SHA-256, no id in the secret)', async () => {
      const { ragdesk, store } = open();
      const legacy = 'rdk_' + randomBytes(32).toString('base64url');
      const id = randomUUID();
      await store.createApiKey({
        id,
        ownerId: 'alice',
        name: 'old',
        hash: createHash('sha256').update(legacy).digest('hex'),
        prefix: legacy.slice(0, 12),
        scopes: ['read'],
        datastoreIds: null,
        createdAt: new Date().toISOString(),
        lastUsedAt: null,
        revokedAt: null,
      });
      expect((await ragdesk.keys.verify(legacy))?.id).toBe(id);
      // The legacy digest is not reachable through the id path: a secret naming that id fails.
      expect(await ragdesk.keys.verify(`rdk_${id}_${legacy.slice(4)}`)).toBeNull();
      await ragdesk.keys.revoke(id);
      expect(await ragdesk.keys.verify(legacy)).toBeNull();
    });

    it("refuses another key's id with this key's secret, and a known id with a wrong secret", async () => {
      const { ragdesk } = open();
      const a = await ragdesk.keys.create({ ownerId: 'alice' });
      const b = await ragdesk.keys.create({ ownerId: 'bob' });
      const swapped = `rdk_${b.apiKey.id}_${a.key.slice(41)}`;
      expect(await ragdesk.keys.verify(swapped)).toBeNull();
      expect(await ragdesk.keys.verify(`rdk_${a.apiKey.id}_${'A'.repeat(43)}`)).toBeNull();
      expect(await ragdesk.keys.verify(`rdk_${randomUUID()}_${a.key.slice(41)}`)).toBeNull();
      expect((await ragdesk.keys.verify(b.key))?.ownerId).toBe('bob');
    });

    it('verifies the exact secret only; revoked keys are unknown', async () => {
      const { ragdesk } = open();
      const { key, apiKey } = await ragdesk.keys.create({ ownerId: 'alice', datastoreIds: ['d1', 'd1'] });
      expect((await ragdesk.keys.verify(key))?.id).toBe(apiKey.id);
      expect((await ragdesk.keys.verify(key))?.datastoreIds).toEqual(['d1']);
      const last = key.at(-1) === 'A' ? 'B' : 'A';
      for (const wrong of [key.slice(0, -1) + last, key + 'x', key.toUpperCase(), '', 'rdk_', ' '.repeat(50), 'x'.repeat(10_000)]) {
        expect(await ragdesk.keys.verify(wrong)).toBeNull();
      }
      await ragdesk.keys.revoke(apiKey.id);
      expect(await ragdesk.keys.verify(key)).toBeNull();
      const listed = await ragdesk.keys.list({ ownerId: 'alice' });
      expect(listed[0]?.revokedAt).not.toBeNull();
    });

    it('writes lastUsedAt once per interval however many requests arrive together', async () => {
      // 2 s: the steps between the first write and the second verify take milliseconds, 10x under it
      // even on a loaded machine.
      const { ragdesk, store } = open(2_000);
      const { key } = await ragdesk.keys.create({ ownerId: 'alice' });
      const results = await Promise.all(Array.from({ length: 100 }, () => ragdesk.keys.verify(key)));
      expect(results.every((result) => result !== null)).toBe(true);
      expect(store.keyWrites).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const [stored] = await ragdesk.keys.list();
      expect(stored?.lastUsedAt).not.toBeNull();
      await ragdesk.keys.verify(key);
      expect(store.keyWrites).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      await ragdesk.keys.verify(key);
      expect(store.keyWrites).toBe(2);
    });

    it('lists and revokes per owner; another owner cannot revoke', async () => {
      const { ragdesk } = open();
      const alice = await ragdesk.keys.create({ ownerId: 'alice' });
      await ragdesk.keys.create({ ownerId: 'bob' });
      expect((await ragdesk.keys.list({ ownerId: 'alice' })).map((key) => key.id)).toEqual([alice.apiKey.id]);
      expect(await ragdesk.keys.list()).toHaveLength(2);
      await expect(ragdesk.keys.revoke(alice.apiKey.id, { ownerId: 'bob' })).rejects.toMatchObject({ code: 'not_found' });
      const first = await ragdesk.keys.revoke(alice.apiKey.id, { ownerId: 'alice' });
      const again = await ragdesk.keys.revoke(alice.apiKey.id);
      expect(again.revokedAt).toBe(first.revokedAt);
    });

    it('validates its input with named fields', async () => {
      const { ragdesk } = open();
      const error = await ragdesk.keys.create({ ownerId: '', scopes: ['root' as 'admin'] }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RagdeskError);
      const issues = (error as RagdeskError).details?.issues as { path: string }[];
      expect(issues.map((issue) => issue.path).sort()).toEqual(['ownerId', 'scopes.0']);
    });
  });
}
