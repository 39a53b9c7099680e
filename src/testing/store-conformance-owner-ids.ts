/**
 * Per-owner names in the Store conformance suite: an agent `handle` is unique within its owner
 * only (owner-less agents count as one owner), and public agents never share one, since a public
 * handle is the address visitors use; a conversation id is unique within its agent only.
 */
import type { AccountStore } from '../ports/store.js';
import { describe, expect, it } from 'vitest';
import { isoAt, makeAgent, makeConversation, makeMessage } from './fixtures.js';
import { expectCode, type StoreSuiteContext } from './store-harness.js';

export function describeOwnerIdConformance(context: StoreSuiteContext<AccountStore>): void {
  const store = () => context.store();

  describe('per-owner handles', () => {
    it("lets another owner use a handle; the first owner's agent is unchanged", async () => {
      const mine = makeAgent({ id: 'agent-a', name: 'Mine', ownerId: 'owner-a', handle: 'support' });
      const theirs = makeAgent({ id: 'agent-b', name: 'Theirs', ownerId: 'owner-b', handle: 'support' });
      const nobody = makeAgent({ id: 'agent-n', name: 'Nobody', handle: 'support' });
      for (const record of [mine, theirs, nobody]) await store().createAgent(record);
      expect(await store().getAgent(mine.id)).toEqual(mine);
      expect(await store().getAgent(theirs.id)).toEqual(theirs);
      expect(await store().getAgent(nobody.id)).toEqual(nobody);
      // Set by update too.
      const other = makeAgent({ id: 'agent-b2', name: 'Other', ownerId: 'owner-b' });
      await store().createAgent(other);
      await expectCode(store().updateAgent(other.id, { handle: 'support' }), 'conflict');
      expect((await store().updateAgent(other.id, { handle: 'help' }))?.handle).toBe('help');
      expect(await store().getAgent(mine.id)).toEqual(mine);
    });

    it('refuses a handle another agent of the same owner holds, owner-less agents included', async () => {
      await store().createAgent(makeAgent({ id: 'first', name: 'First', ownerId: 'owner-a', handle: 'sales' }));
      await expectCode(store().createAgent(makeAgent({ id: 'second', name: 'Second', ownerId: 'owner-a', handle: 'sales' })), 'conflict');
      expect(await store().getAgent('second')).toBeNull();
      await store().createAgent(makeAgent({ id: 'free-1', name: 'Free one', handle: 'sales' }));
      await expectCode(store().createAgent(makeAgent({ id: 'free-2', name: 'Free two', handle: 'sales' })), 'conflict');
      // An agent keeps its own handle through an update.
      expect((await store().updateAgent('first', { name: 'Renamed', handle: 'sales' }))?.name).toBe('Renamed');
    });

    it('never lets two public agents share a handle, by create or by update', async () => {
      await store().createAgent(makeAgent({ id: 'pub-a', name: 'Public A', ownerId: 'owner-a', handle: 'faq', visibility: 'public' }));
      await expectCode(
        store().createAgent(makeAgent({ id: 'pub-b', name: 'Public B', ownerId: 'owner-b', handle: 'faq', visibility: 'public' })),
        'conflict',
      );
      await store().createAgent(makeAgent({ id: 'priv-b', name: 'Private B', ownerId: 'owner-b', handle: 'faq' }));
      await expectCode(store().updateAgent('priv-b', { visibility: 'public' }), 'conflict');
      expect((await store().getAgent('priv-b'))?.visibility).toBe('private');
      // Once the first is private again, the name is free for another public agent.
      await store().updateAgent('pub-a', { visibility: 'private' });
      expect((await store().updateAgent('priv-b', { visibility: 'public' }))?.visibility).toBe('public');
    });
  });
  describe('per-agent conversation ids', () => {
    it("lets another owner's agent use a conversation id: two conversations, each with its own messages", async () => {
      const mine = makeAgent({ id: 'agent-a', name: 'Mine', ownerId: 'owner-a' });
      const theirs = makeAgent({ id: 'agent-b', name: 'Theirs', ownerId: 'owner-b' });
      await store().createAgent(mine);
      await store().createAgent(theirs);
      const first = makeConversation(mine, 1, { id: 'chosen-id', visitorId: 'visitor-a' });
      const second = makeConversation(theirs, 2, { id: 'chosen-id', visitorId: 'visitor-b' });
      await store().createConversation(first);
      await store().createConversation(second);
      const firstMessage = makeMessage(first, 3, 'user', { id: 'message-a', text: 'SECRET-OF-A' });
      const secondMessage = makeMessage(second, 4, 'user', { id: 'message-b', text: 'question of b' });
      await store().appendMessages(mine.id, first.id, [firstMessage]);
      await store().appendMessages(theirs.id, second.id, [secondMessage]);

      expect(await store().getConversation(mine.id, 'chosen-id')).toEqual({ ...first, updatedAt: isoAt(3) });
      expect(await store().getConversation(theirs.id, 'chosen-id')).toEqual({ ...second, updatedAt: isoAt(4) });
      expect(await store().listMessages(mine.id, 'chosen-id')).toEqual([firstMessage]);
      expect(await store().listMessages(theirs.id, 'chosen-id')).toEqual([secondMessage]);
      expect((await store().listConversations(theirs.id)).map((conversation) => conversation.visitorId)).toEqual(['visitor-b']);
      // Through an agent that has no such conversation, nothing is found or written.
      const third = makeAgent({ id: 'agent-c', name: 'Third', ownerId: 'owner-b' });
      await store().createAgent(third);
      expect(await store().getConversation(third.id, 'chosen-id')).toBeNull();
      expect(await store().listMessages(third.id, 'chosen-id')).toEqual([]);
      await expectCode(store().appendMessages(third.id, 'chosen-id', [makeMessage(first, 5, 'user', { id: 'message-c' })]), 'not_found');

      // Within one agent the id stays unique; deleting one agent leaves the other's conversation.
      await expectCode(store().createConversation({ ...second, visitorId: 'someone-else' }), 'conflict');
      expect(await store().deleteAgent(theirs.id)).toBe(true);
      expect(await store().getConversation(theirs.id, 'chosen-id')).toBeNull();
      expect(await store().listMessages(mine.id, 'chosen-id')).toEqual([firstMessage]);
    });

    it('reads, marks, filters and deletes each agent’s conversation apart when two share an id', async () => {
      const mine = makeAgent({ id: 'agent-a', name: 'Mine', ownerId: 'owner-a' });
      const theirs = makeAgent({ id: 'agent-b', name: 'Theirs', ownerId: 'owner-b' });
      await store().createAgent(mine);
      await store().createAgent(theirs);
      const first = makeConversation(mine, 1, { id: 'shared', visitorId: 'visitor-a' });
      const second = makeConversation(theirs, 2, { id: 'shared', visitorId: 'visitor-b' });
      await store().createConversation(first);
      await store().createConversation(second);
      await store().createConversation(makeConversation(mine, 3, { id: 'not-shared' }));
      const answerA = makeMessage(first, 4, 'assistant', { id: 'answer-a' });
      const answerB = makeMessage(second, 5, 'assistant', { id: 'answer-b' });
      await store().appendMessages(mine.id, 'shared', [answerA]);
      await store().appendMessages(theirs.id, 'shared', [answerB]);

      const updated = (record: typeof first, seconds: number) => ({ ...record, updatedAt: isoAt(seconds) });
      expect(await store().listConversationsWithId('shared')).toEqual([updated(first, 4), updated(second, 5)]);
      expect(await store().listConversationsWithId('missing')).toEqual([]);
      expect(await store().getMessageConversation('answer-a')).toEqual(updated(first, 4));
      expect(await store().getMessageConversation('answer-b')).toEqual(updated(second, 5));

      // A mark in one agent's conversation is not the other's.
      await store().setMessageFeedback('answer-a', { value: 'bad', comment: null, createdAt: isoAt(6) });
      const marked = async (agentId: string) =>
        (await store().findConversations({ agentId, limit: 10, feedback: 'any' })).map((record) => record.id);
      expect(await marked(mine.id)).toEqual(['shared']);
      expect(await marked(theirs.id)).toEqual([]);
      expect((await store().findConversations({ agentId: theirs.id, limit: 10, feedback: 'none' })).map((r) => r.id)).toEqual(['shared']);

      // Deleting one leaves the other with its messages.
      expect(await store().deleteConversation(theirs.id, 'shared')).toBe(true);
      expect(await store().listConversationsWithId('shared')).toEqual([updated(first, 4)]);
      expect(await store().listMessages(mine.id, 'shared')).toEqual([
        { ...answerA, feedback: { value: 'bad', comment: null, createdAt: isoAt(6) } },
      ]);
      expect(await store().getMessage('answer-b')).toBeNull();
    });
  });
}
