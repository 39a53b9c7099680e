/**
 * Agent part of the account store conformance suite: `AgentStore`, `ConversationStore`,
 * `ApiKeyStore`, `UsageStore`.
 */
import type { AccountStore, AgentPatch, ApiKeyPatch } from '../ports/store.js';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AgentRecord, ConversationRecord, MessageRecord } from '../ports/agent-key-usage-records.js';
import { isoAt, makeAgent, makeApiKey, makeConversation, makeDatastore, makeMessage } from './fixtures.js';
import { expectCode, type StoreSuiteContext } from './store-harness.js';

export function describeAgentConformance(context: StoreSuiteContext<AccountStore>): void {
  const store = () => context.store();

  describe('agents', () => {
    it('creates, reads back equal copies, and returns null for unknown ids', async () => {
      const agent = makeAgent({
        ownerId: 'owner-a',
        datastoreIds: ['ds-b', 'ds-a'],
        systemPrompt: 'Be brief.',
        userPrompt: 'Q: {query}\n{context}',
        promptType: 'customer_support',
        promptTemplate: 'Old style template',
        visibility: 'public',
        temperature: 0.35,
        allowOverrides: ['temperature', 'systemPrompt'],
        handle: 'helper-bot',
        settings: { includeSources: false, interfaceConfig: { theme: 'dark' }, iconUrl: null },
      });
      await store().createAgent(agent);
      const read = await store().getAgent(agent.id);
      expect(read).toEqual(agent);
      read!.datastoreIds.push('mutated');
      agent.datastoreIds.push('mutated too');
      expect((await store().getAgent(agent.id))?.datastoreIds).toEqual(['ds-b', 'ds-a']);
      expect(await store().getAgent('missing')).toBeNull();
    });

    it('rejects a duplicate id with conflict', async () => {
      await store().createAgent(makeAgent({ id: 'same', name: 'First' }));
      await expectCode(store().createAgent(makeAgent({ id: 'same', name: 'Second' })), 'conflict');
      expect((await store().getAgent('same'))?.name).toBe('First');
    });

    it("lists oldest first, optionally one owner's", async () => {
      const records = [
        makeAgent({ name: 'Later', ownerId: 'owner-a', createdAt: isoAt(20) }),
        makeAgent({ name: 'Earliest', ownerId: 'owner-b', createdAt: isoAt(5) }),
        makeAgent({ name: 'Middle', ownerId: 'owner-a', createdAt: isoAt(10) }),
        makeAgent({ name: 'Unowned', createdAt: isoAt(15) }),
      ];
      for (const record of records) await store().createAgent(record);
      const names = async (filter?: { ownerId?: string }) => (await store().listAgents(filter)).map((a) => a.name);
      expect(await names()).toEqual(['Earliest', 'Middle', 'Unowned', 'Later']);
      expect(await names({ ownerId: 'owner-a' })).toEqual(['Middle', 'Later']);
      expect(await names({ ownerId: 'nobody' })).toEqual([]);
      const listed = await store().listAgents();
      listed[0]!.datastoreIds.push('mutated');
      expect((await store().listAgents())[0]?.datastoreIds).toEqual([]);
    });

    it('patches: given fields change, absent ones stay, null clears, fixed fields are ignored', async () => {
      const agent = makeAgent({ ownerId: 'owner-a', systemPrompt: 'Be brief.', datastoreIds: ['ds-a'] });
      await store().createAgent(agent);
      const patch: AgentPatch = {
        name: 'Renamed',
        systemPrompt: null,
        temperature: 0.9,
        datastoreIds: ['ds-c', 'ds-a'],
        modelName: 'gpt_4',
        allowOverrides: ['topP'],
        updatedAt: isoAt(30),
        description: undefined,
      };
      const expected: AgentRecord = { ...agent, ...patch, description: agent.description, datastoreIds: ['ds-c', 'ds-a'] };
      const updated = await store().updateAgent(agent.id, patch);
      expect(updated).toEqual(expected);
      expect(await store().getAgent(agent.id)).toEqual(expected);
      patch.datastoreIds!.push('mutated');
      updated!.datastoreIds.push('mutated');
      expect((await store().getAgent(agent.id))?.datastoreIds).toEqual(['ds-c', 'ds-a']);
      // Not in AgentPatch, but JavaScript callers can still send them.
      const sneaky = { id: 'other', ownerId: 'owner-b', createdAt: isoAt(99) } as unknown as AgentPatch;
      expect(await store().updateAgent(agent.id, sneaky)).toEqual(expected);
      expect(await store().listAgents({ ownerId: 'owner-b' })).toEqual([]);
      expect(await store().updateAgent('missing', { name: 'x' })).toBeNull();
    });
  });

  describe('conversations and messages', () => {
    let agent: AgentRecord;
    let conversation: ConversationRecord;

    beforeEach(async () => {
      agent = makeAgent({ name: 'Support' });
      conversation = makeConversation(agent, 10);
      await store().createAgent(agent);
      await store().createConversation(conversation);
    });

    it('creates conversations, rejecting a duplicate id and an unknown agent', async () => {
      expect(await store().getConversation(conversation.agentId, conversation.id)).toEqual(conversation);
      expect(await store().getConversation(agent.id, 'missing')).toBeNull();
      await expectCode(store().createConversation({ ...conversation, visitorId: 'other' }), 'conflict');
      expect((await store().getConversation(conversation.agentId, conversation.id))?.visitorId).toBe(conversation.visitorId);
      const orphan = makeConversation({ id: 'no-such-agent' }, 11);
      await expectCode(store().createConversation(orphan), 'not_found');
      expect(await store().getConversation(orphan.agentId, orphan.id)).toBeNull();
      const withContact = makeConversation(agent, 12, { contact: { email: 'ada@example.com', firstName: 'Ada' } });
      await store().createConversation(withContact);
      expect(await store().getConversation(withContact.agentId, withContact.id)).toEqual(withContact);
    });

    it("lists an agent's conversations oldest first", async () => {
      const other = makeAgent({ name: 'Other' });
      await store().createAgent(other);
      const later = makeConversation(agent, 30);
      const earlier = makeConversation(agent, 5);
      await store().createConversation(later);
      await store().createConversation(makeConversation(other, 1));
      await store().createConversation(earlier);
      expect((await store().listConversations(agent.id)).map((c) => c.id)).toEqual([earlier.id, conversation.id, later.id]);
      expect((await store().listConversations(other.id)).map((c) => c.agentId)).toEqual([other.id]);
      expect(await store().listConversations('missing')).toEqual([]);
    });

    it('appends messages, round-trips sources and usage in fresh copies, and bumps updatedAt', async () => {
      const question = makeMessage(conversation, 20, 'user');
      const answer = makeMessage(conversation, 21, 'assistant');
      await store().appendMessages(conversation.agentId, conversation.id, [question, answer]);
      expect((await store().getConversation(conversation.agentId, conversation.id))?.updatedAt).toBe(isoAt(21));
      const listed = await store().listMessages(conversation.agentId, conversation.id);
      expect(listed).toEqual([answer, question]);
      listed[0]!.sources[0]!.score = -1;
      listed[0]!.usage!.cost = 99;
      answer.sources.push({ ...answer.sources[0]!, chunk_id: 'added later' });
      const again = await store().listMessages(conversation.agentId, conversation.id);
      expect(again[0]?.sources).toEqual([makeMessage(conversation, 21, 'assistant').sources[0]]);
      expect(again[0]?.usage).toEqual(makeMessage(conversation, 21, 'assistant').usage);
      // An empty batch writes nothing and leaves updatedAt alone.
      await store().appendMessages(conversation.agentId, conversation.id, []);
      expect((await store().getConversation(conversation.agentId, conversation.id))?.updatedAt).toBe(isoAt(21));
      expect((await store().listMessages(conversation.agentId, conversation.id)).length).toBe(2);
    });

    it('appends all of a batch or nothing: a duplicate id leaves no message behind', async () => {
      const first = makeMessage(conversation, 20, 'user');
      await store().appendMessages(conversation.agentId, conversation.id, [first]);
      const fresh = makeMessage(conversation, 30, 'user');
      const answer = makeMessage(conversation, 31, 'assistant');
      // Duplicate inside the batch (the later copy clashes with the earlier one).
      await expectCode(
        store().appendMessages(conversation.agentId, conversation.id, [fresh, answer, { ...answer, text: 'again' }]),
        'conflict',
      );
      // Duplicate of a stored message, after a valid one.
      await expectCode(
        store().appendMessages(conversation.agentId, conversation.id, [fresh, { ...first, createdAt: isoAt(32) }]),
        'conflict',
      );
      expect(await store().listMessages(conversation.agentId, conversation.id)).toEqual([first]);
      expect((await store().getConversation(conversation.agentId, conversation.id))?.updatedAt).toBe(isoAt(20));
      // Message ids are unique across conversations too.
      const other = makeConversation(agent, 40);
      await store().createConversation(other);
      await expectCode(store().appendMessages(other.agentId, other.id, [{ ...first, conversationId: other.id }]), 'conflict');
      expect(await store().listMessages(other.agentId, other.id)).toEqual([]);
      await expectCode(
        store().appendMessages(agent.id, 'missing', [makeMessage({ id: 'missing', visitorId: 'v' }, 1, 'user')]),
        'not_found',
      );
      // The batch still lands whole afterwards.
      await store().appendMessages(conversation.agentId, conversation.id, [fresh, answer]);
      expect((await store().listMessages(conversation.agentId, conversation.id)).map((m) => m.id)).toEqual([answer.id, fresh.id, first.id]);
      expect((await store().getConversation(conversation.agentId, conversation.id))?.updatedAt).toBe(isoAt(31));
    });

    it('lists newest first, ties by insertion order (later first), at most `limit`', async () => {
      // Written out of time order, with three messages at the same instant.
      const batches: MessageRecord[][] = [
        [makeMessage(conversation, 50, 'user'), makeMessage(conversation, 50, 'assistant')],
        [makeMessage(conversation, 40, 'user', { id: 'early' })],
        [makeMessage(conversation, 50, 'user', { id: 'same-instant-last' }), makeMessage(conversation, 60, 'user')],
      ];
      for (const batch of batches) await store().appendMessages(conversation.agentId, conversation.id, batch);
      const ids = async (limit?: number) =>
        (await store().listMessages(conversation.agentId, conversation.id, limit === undefined ? undefined : { limit })).map((m) => m.id);
      const newestFirst = [
        makeMessage(conversation, 60, 'user').id,
        'same-instant-last',
        makeMessage(conversation, 50, 'assistant').id,
        makeMessage(conversation, 50, 'user').id,
        'early',
      ];
      expect(await ids()).toEqual(newestFirst);
      expect(await ids(3)).toEqual(newestFirst.slice(0, 3));
      expect(await ids(1)).toEqual(newestFirst.slice(0, 1));
      expect(await ids(0)).toEqual([]);
      expect(await ids(100)).toEqual(newestFirst);
      expect(await store().listMessages(agent.id, 'missing')).toEqual([]);
      // updatedAt is the last message's time, even when it is not the newest.
      await store().appendMessages(conversation.agentId, conversation.id, [makeMessage(conversation, 45, 'user')]);
      expect((await store().getConversation(conversation.agentId, conversation.id))?.updatedAt).toBe(isoAt(45));
    });

    it('deletes an agent with its conversations and their messages, nothing else', async () => {
      const other = makeAgent({ name: 'Other' });
      const kept = makeConversation(other, 1);
      const second = makeConversation(agent, 20);
      await store().createAgent(other);
      await store().createConversation(kept);
      await store().createConversation(second);
      await store().appendMessages(conversation.agentId, conversation.id, [
        makeMessage(conversation, 11, 'user'),
        makeMessage(conversation, 12, 'assistant'),
      ]);
      await store().appendMessages(second.agentId, second.id, [makeMessage(second, 21, 'user')]);
      await store().appendMessages(kept.agentId, kept.id, [makeMessage(kept, 2, 'user')]);
      const inspect = context.harness.inspect;
      const rows = async () => [
        await inspect?.conversationRows?.(agent.id),
        await inspect?.messageRows?.(conversation.id),
        await inspect?.messageRows?.(second.id),
      ];
      const before = await rows();
      if (before[0] !== undefined) expect(before).toEqual([2, 2, 1]);

      expect(await store().deleteAgent(agent.id)).toBe(true);
      expect(await store().getAgent(agent.id)).toBeNull();
      expect(await store().listConversations(agent.id)).toEqual([]);
      expect(await store().getConversation(conversation.agentId, conversation.id)).toBeNull();
      expect(await store().listMessages(conversation.agentId, conversation.id)).toEqual([]);
      expect(await store().listMessages(second.agentId, second.id)).toEqual([]);
      if (before[0] !== undefined) expect(await rows()).toEqual([0, 0, 0]);
      expect(await store().deleteAgent(agent.id)).toBe(false);
      expect(await store().listMessages(kept.agentId, kept.id)).toHaveLength(1);
      expect((await store().listAgents()).map((a) => a.id)).toEqual([other.id]);

      // Recreating the same ids starts from nothing, and the old message ids are free again.
      await store().createAgent(agent);
      await store().createConversation(conversation);
      expect(await store().listMessages(conversation.agentId, conversation.id)).toEqual([]);
      await store().appendMessages(conversation.agentId, conversation.id, [makeMessage(conversation, 11, 'user')]);
      expect(await store().listMessages(conversation.agentId, conversation.id)).toHaveLength(1);
    });
  });

  describe('API keys', () => {
    it('creates, finds by hash, and rejects a duplicate id or hash with conflict', async () => {
      const key = makeApiKey('owner-a', { scopes: ['read', 'write'], datastoreIds: ['ds-1', 'ds-2'] });
      await store().createApiKey(key);
      const found = await store().findApiKeyByHash(key.hash);
      expect(found).toEqual(key);
      found!.scopes.push('admin');
      found!.datastoreIds!.push('mutated');
      expect(await store().findApiKeyByHash(key.hash)).toEqual(key);
      expect(await store().findApiKeyByHash('0'.repeat(64))).toBeNull();

      await expectCode(store().createApiKey({ ...makeApiKey('owner-b', { name: 'other' }), id: key.id }), 'conflict');
      await expectCode(store().createApiKey({ ...makeApiKey('owner-b', { name: 'other' }), hash: key.hash }), 'conflict');
      expect(await store().listApiKeys()).toEqual([key]);
    });

    it('gets a key by id (salted digests kept verbatim), a copy each time, null for an unknown id', async () => {
      const salted = `hmac-sha256:${'ab'.repeat(16)}:${'cd'.repeat(32)}`;
      const key = makeApiKey('owner-a', { name: 'salted', hash: salted, datastoreIds: ['ds-1'] });
      const other = makeApiKey('owner-b', { name: 'other' });
      await store().createApiKey(key);
      await store().createApiKey(other);
      const found = await store().getApiKey(key.id);
      expect(found).toEqual(key);
      found!.scopes.push('admin');
      found!.datastoreIds!.push('mutated');
      expect(await store().getApiKey(key.id)).toEqual(key);
      expect(await store().getApiKey(other.id)).toEqual(other);
      expect(await store().getApiKey('missing')).toBeNull();
      // Exact match only: no prefix, case or pattern semantics.
      expect(await store().getApiKey(key.id.toUpperCase())).toBeNull();
      expect(await store().getApiKey(key.id.slice(0, -1))).toBeNull();
      expect(await store().getApiKey('%')).toBeNull();
      const revoked = await store().updateApiKey(key.id, { revokedAt: isoAt(9) });
      expect(await store().getApiKey(key.id)).toEqual(revoked);
    });

    it('keeps an expiry through reads, lists and patches; a key without one reads back without it', async () => {
      const expiring = makeApiKey('owner-a', { name: 'expiring', expiresAt: isoAt(90) });
      const lasting = makeApiKey('owner-a', { name: 'lasting', createdAt: isoAt(2) });
      await store().createApiKey(expiring);
      await store().createApiKey(lasting);
      expect(await store().getApiKey(expiring.id)).toEqual(expiring);
      expect((await store().getApiKey(lasting.id))?.expiresAt ?? null).toBeNull();
      expect(await store().findApiKeyByHash(expiring.hash)).toEqual(expiring);
      expect((await store().listApiKeys({ ownerId: 'owner-a' })).find((key) => key.id === expiring.id)).toEqual(expiring);
      expect(await store().updateApiKey(expiring.id, { lastUsedAt: isoAt(91) })).toEqual({ ...expiring, lastUsedAt: isoAt(91) });
    });

    it("lists oldest first (revoked included), optionally one owner's", async () => {
      const a1 = makeApiKey('owner-a', { name: 'ci', createdAt: isoAt(10) });
      const b1 = makeApiKey('owner-b', { name: 'web', createdAt: isoAt(5), revokedAt: isoAt(6) });
      const a2 = makeApiKey('owner-a', { name: 'laptop', createdAt: isoAt(1), scopes: ['admin'] });
      for (const key of [a1, b1, a2]) await store().createApiKey(key);
      expect(await store().listApiKeys()).toEqual([a2, b1, a1]);
      expect(await store().listApiKeys({ ownerId: 'owner-a' })).toEqual([a2, a1]);
      expect(await store().listApiKeys({ ownerId: 'owner-b' })).toEqual([b1]);
      expect(await store().listApiKeys({ ownerId: 'nobody' })).toEqual([]);
    });

    it('patches name, last use and revocation only; a revoked key is still found by hash', async () => {
      const key = makeApiKey('owner-a', { name: 'ci' });
      await store().createApiKey(key);
      const used = await store().updateApiKey(key.id, { lastUsedAt: isoAt(50) });
      expect(used).toEqual({ ...key, lastUsedAt: isoAt(50) });
      const revoked = await store().updateApiKey(key.id, { revokedAt: isoAt(60), name: 'old ci' });
      const expected = { ...key, lastUsedAt: isoAt(50), revokedAt: isoAt(60), name: 'old ci' };
      expect(revoked).toEqual(expected);
      expect(await store().findApiKeyByHash(key.hash)).toEqual(expected);
      const sneaky = { hash: 'f'.repeat(64), ownerId: 'owner-b', scopes: ['admin'], id: 'x' } as unknown as ApiKeyPatch;
      expect(await store().updateApiKey(key.id, sneaky)).toEqual(expected);
      expect(await store().findApiKeyByHash('f'.repeat(64))).toBeNull();
      expect(await store().updateApiKey('missing', { revokedAt: isoAt(1) })).toBeNull();
    });
  });

  describe('usage counters', () => {
    const counter = { subject: 'owner-a', metric: 'agent_queries', period: '2026-11-22' };

    it('adds up to the limit and refuses what would exceed it, leaving the counter unchanged', async () => {
      expect(await store().consumeUsage({ ...counter, amount: 2, limit: 5 })).toEqual({ allowed: true, used: 2 });
      expect(await store().consumeUsage({ ...counter, amount: 3, limit: 5 })).toEqual({ allowed: true, used: 5 });
      expect(await store().consumeUsage({ ...counter, amount: 1, limit: 5 })).toEqual({ allowed: false, used: 5 });
      // A higher limit (say the plan changed) lets more through; no limit adds unconditionally.
      expect(await store().consumeUsage({ ...counter, amount: 1, limit: 6 })).toEqual({ allowed: true, used: 6 });
      expect(await store().consumeUsage({ ...counter, amount: 10 })).toEqual({ allowed: true, used: 16 });
      expect(await store().consumeUsage({ ...counter, amount: 0, limit: 16 })).toEqual({ allowed: true, used: 16 });
      expect(await store().consumeUsage({ ...counter, amount: 0, limit: 3 })).toEqual({ allowed: false, used: 16 });
    });

    it('refuses a first use larger than the limit without creating the counter', async () => {
      expect(await store().consumeUsage({ ...counter, amount: 7, limit: 5 })).toEqual({ allowed: false, used: 0 });
      expect(await store().consumeUsage({ ...counter, amount: 5, limit: 5 })).toEqual({ allowed: true, used: 5 });
    });

    it('keeps one counter per subject, metric and period, fractional amounts included', async () => {
      await store().consumeUsage({ ...counter, amount: 4, limit: 4 });
      expect(await store().consumeUsage({ ...counter, subject: 'owner-b', amount: 4, limit: 4 })).toEqual({ allowed: true, used: 4 });
      expect(await store().consumeUsage({ ...counter, metric: 'stored_tokens', amount: 4, limit: 4 })).toEqual({ allowed: true, used: 4 });
      expect(await store().consumeUsage({ ...counter, period: '2026-11-23', amount: 4, limit: 4 })).toEqual({ allowed: true, used: 4 });
      // Separator-looking characters do not merge counters.
      expect(await store().consumeUsage({ subject: 'a|b', metric: 'c', period: 'd', amount: 1, limit: 1 })).toEqual({
        allowed: true,
        used: 1,
      });
      expect(await store().consumeUsage({ subject: 'a', metric: 'b|c', period: 'd', amount: 1, limit: 1 })).toEqual({
        allowed: true,
        used: 1,
      });
      const cost = { subject: 'owner-a', metric: 'cost_usd', period: '2026-11' };
      expect(await store().consumeUsage({ ...cost, amount: 0.25, limit: 1 })).toEqual({ allowed: true, used: 0.25 });
      expect(await store().consumeUsage({ ...cost, amount: 0.5, limit: 1 })).toEqual({ allowed: true, used: 0.75 });
      expect(await store().consumeUsage({ ...cost, amount: 0.5, limit: 1 })).toEqual({ allowed: false, used: 0.75 });
    });

    it('never lets concurrent consumes exceed the limit', async () => {
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => store().consumeUsage({ ...counter, amount: 1 + (i % 3), limit: 50 })),
      );
      const allowed = results.filter((result) => result.allowed);
      const granted = results.reduce((sum, result, i) => sum + (result.allowed ? 1 + (i % 3) : 0), 0);
      const final = await store().consumeUsage({ ...counter, amount: 0, limit: 50 });
      expect(final).toEqual({ allowed: true, used: granted });
      expect(granted).toBeLessThanOrEqual(50);
      // 60 requests of 1-3 ask for 120: the counter fills to the limit (or within 2 of it).
      expect(granted).toBeGreaterThanOrEqual(48);
      expect(allowed.length).toBeLessThan(60);
      for (const result of results) expect(result.used).toBeLessThanOrEqual(50);
    });

    it('rejects a NaN or infinite amount with invalid_request, counting nothing', async () => {
      await expectCode(store().consumeUsage({ ...counter, amount: Number.NaN, limit: 5 }), 'invalid_request');
      await expectCode(store().consumeUsage({ ...counter, amount: Number.POSITIVE_INFINITY }), 'invalid_request');
      await expectCode(store().consumeUsage({ ...counter, amount: 1, limit: Number.NaN }), 'invalid_request');
      expect(await store().consumeUsage({ ...counter, amount: 0 })).toEqual({ allowed: true, used: 0 });
    });
  });

  it.skipIf(context.harness.reopen === undefined)(
    'keeps agents, conversations, messages, keys and counters across close and reopen',
    async () => {
      const datastore = makeDatastore({ ownerId: 'owner-a' });
      const agent = makeAgent({ ownerId: 'owner-a', datastoreIds: [datastore.id], temperature: 0.7 });
      const conversation = makeConversation(agent, 5);
      const messages = [makeMessage(conversation, 6, 'user'), makeMessage(conversation, 7, 'assistant')];
      const key = makeApiKey('owner-a', { datastoreIds: [datastore.id], lastUsedAt: isoAt(8) });
      await store().createAgent(agent);
      await store().createConversation(conversation);
      await store().appendMessages(conversation.agentId, conversation.id, messages);
      await store().createApiKey(key);
      await store().consumeUsage({ subject: 'owner-a', metric: 'q', period: 'p', amount: 3, limit: 4 });

      const reopened = await context.reopen();
      expect(await reopened.listApiKeys({ ownerId: 'owner-a' })).toEqual([key]);
      expect(await reopened.getAgent(agent.id)).toEqual(agent);
      expect(await reopened.getConversation(agent.id, conversation.id)).toEqual({ ...conversation, updatedAt: isoAt(7) });
      expect(await reopened.listMessages(agent.id, conversation.id)).toEqual([...messages].reverse());
      expect(await reopened.findApiKeyByHash(key.hash)).toEqual(key);
      expect(await reopened.consumeUsage({ subject: 'owner-a', metric: 'q', period: 'p', amount: 2, limit: 4 })).toEqual({
        allowed: false,
        used: 3,
      });
      // The cascade still holds after reopening (foreign keys are per connection).
      expect(await reopened.deleteAgent(agent.id)).toBe(true);
      expect(await reopened.listMessages(agent.id, conversation.id)).toEqual([]);
    },
  );
}
