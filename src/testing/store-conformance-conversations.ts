/**
 * Reading conversations back (Store conformance): `findConversations` filters and pages,
 * `deleteConversation`, `getMessage`, `getMessageConversation` and message feedback.
 */
import type { AccountStore, ConversationFilter } from '../ports/store.js';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AgentRecord, ConversationRecord, MessageFeedback } from '../ports/agent-key-usage-records.js';
import { isoAt, makeAgent, makeConversation, makeMessage } from './fixtures.js';
import type { StoreSuiteContext } from './store-harness.js';

export function describeConversationReadingConformance(context: StoreSuiteContext<AccountStore>): void {
  const store = () => context.store();

  describe('reading conversations', () => {
    let agent: AgentRecord;
    let other: AgentRecord;
    /** Created at 10, 20, 30, 40 s; the one at 20 s has the newest activity (a message at 50 s). */
    let conversations: ConversationRecord[];
    const good: MessageFeedback = { value: 'good', comment: null, createdAt: isoAt(60) };
    const bad: MessageFeedback = { value: 'bad', comment: 'Wrong total; the invoice says 5,738.', createdAt: isoAt(61) };

    beforeEach(async () => {
      agent = makeAgent({ name: 'Support' });
      other = makeAgent({ name: 'Sales' });
      await store().createAgent(agent);
      await store().createAgent(other);
      conversations = [
        makeConversation(agent, 10, { visitorId: 'v-1', channel: 'website' }),
        makeConversation(agent, 20, { visitorId: 'v-2', channel: 'dashboard' }),
        makeConversation(agent, 30, { visitorId: 'v-1' }),
        makeConversation(agent, 40, { visitorId: 'v-1', channel: 'website' }),
      ];
      for (const record of conversations) await store().createConversation(record);
      await store().createConversation(makeConversation(other, 45, { visitorId: 'v-1', channel: 'website' }));
      await store().appendMessages(agent.id, conversations[1]!.id, [
        makeMessage(conversations[1]!, 49, 'user'),
        makeMessage(conversations[1]!, 50, 'assistant'),
      ]);
    });

    const ids = async (filter: Partial<ConversationFilter>) =>
      (await store().findConversations({ agentId: agent.id, limit: 100, ...filter })).map((record) => record.id);
    const conv = (index: number) => conversations[index]!.id;

    it('lists newest activity first, only the agent’s, at most `limit`, with the channel kept', async () => {
      expect(await ids({})).toEqual([conv(1), conv(3), conv(2), conv(0)]);
      expect(await ids({ limit: 2 })).toEqual([conv(1), conv(3)]);
      expect(await ids({ agentId: 'missing' })).toEqual([]);
      const [first] = await store().findConversations({ agentId: agent.id, limit: 1 });
      expect(first).toEqual({ ...conversations[1], updatedAt: isoAt(50) });
      expect((await store().getConversation(agent.id, conv(0)))?.channel).toBe('website');
      expect((await store().getConversation(agent.id, conv(2)))?.channel).toBeUndefined();
    });

    it('pages by (updatedAt, id) without skipping or repeating, ties included', async () => {
      // Two more at the same instant as conv(3): the id breaks the tie, descending.
      const tiedA = makeConversation(agent, 40, { id: 'tied-a' });
      const tiedB = makeConversation(agent, 40, { id: 'tied-b' });
      await store().createConversation(tiedA);
      await store().createConversation(tiedB);
      const all = await ids({});
      const paged: string[] = [];
      let after: ConversationFilter['after'];
      for (;;) {
        const page = await store().findConversations({ agentId: agent.id, limit: 2, ...(after ? { after } : {}) });
        if (page.length === 0) break;
        paged.push(...page.map((record) => record.id));
        const last = page.at(-1)!;
        after = { updatedAt: last.updatedAt, id: last.id };
      }
      expect(paged).toEqual(all);
      expect(all.slice(1, 4)).toEqual([...[conv(3), 'tied-a', 'tied-b']].sort().reverse());
    });

    it('filters by visitor, channel and activity range', async () => {
      expect(await ids({ visitorId: 'v-1' })).toEqual([conv(3), conv(2), conv(0)]);
      expect(await ids({ channel: 'website' })).toEqual([conv(3), conv(0)]);
      expect(await ids({ visitorId: 'v-1', channel: 'website', limit: 1 })).toEqual([conv(3)]);
      expect(await ids({ updatedFrom: isoAt(30), updatedTo: isoAt(40) })).toEqual([conv(3), conv(2)]);
      expect(await ids({ updatedFrom: isoAt(41) })).toEqual([conv(1)]);
      expect(await ids({ updatedTo: isoAt(9) })).toEqual([]);
    });

    it('sets, reads back, replaces and clears feedback; filters by it', async () => {
      const answerId = makeMessage(conversations[1]!, 50, 'assistant').id;
      expect((await store().getMessage(answerId))?.feedback).toBeNull();
      expect(await ids({ feedback: 'any' })).toEqual([]);
      expect(await ids({ feedback: 'none' })).toEqual([conv(1), conv(3), conv(2), conv(0)]);

      const marked = await store().setMessageFeedback(answerId, bad);
      expect(marked).toEqual({ ...makeMessage(conversations[1]!, 50, 'assistant'), feedback: bad });
      expect(await store().getMessage(answerId)).toEqual(marked);
      expect(await store().getMessageConversation(answerId)).toEqual({ ...conversations[1], updatedAt: isoAt(50) });
      expect(await store().getMessageConversation('missing')).toBeNull();
      expect((await store().listMessages(agent.id, conv(1)))[0]?.feedback).toEqual(bad);
      expect(await ids({ feedback: 'bad' })).toEqual([conv(1)]);
      expect(await ids({ feedback: 'good' })).toEqual([]);
      expect(await ids({ feedback: 'any' })).toEqual([conv(1)]);
      expect(await ids({ feedback: 'none' })).toEqual([conv(3), conv(2), conv(0)]);
      // Feedback is no activity: the order does not change.
      expect((await store().getConversation(agent.id, conv(1)))?.updatedAt).toBe(isoAt(50));

      await store().setMessageFeedback(answerId, good);
      expect(await ids({ feedback: 'good' })).toEqual([conv(1)]);
      expect(await ids({ feedback: 'bad' })).toEqual([]);
      await store().setMessageFeedback(answerId, null);
      expect((await store().getMessage(answerId))?.feedback).toBeNull();
      expect(await ids({ feedback: 'any' })).toEqual([]);

      expect(await store().setMessageFeedback('missing', good)).toBeNull();
      expect(await store().getMessage('missing')).toBeNull();
    });

    it('deletes one conversation with its messages, nothing else', async () => {
      const answerId = makeMessage(conversations[1]!, 50, 'assistant').id;
      expect(await store().deleteConversation(other.id, conv(1))).toBe(false);
      expect(await store().deleteConversation(agent.id, conv(1))).toBe(true);
      expect(await store().getConversation(agent.id, conv(1))).toBeNull();
      expect(await store().listMessages(agent.id, conv(1))).toEqual([]);
      expect(await store().getMessage(answerId)).toBeNull();
      expect(await store().getMessageConversation(answerId)).toBeNull();
      expect(await store().deleteConversation(agent.id, conv(1))).toBe(false);
      expect(await ids({})).toEqual([conv(3), conv(2), conv(0)]);
      expect((await store().findConversations({ agentId: other.id, limit: 10 })).length).toBe(1);
      // The message id is free again, as after deleting the agent.
      await store().createConversation(makeConversation(agent, 70));
      await store().appendMessages(agent.id, `conv-${agent.id}-70`, [
        { ...makeMessage(conversations[1]!, 50, 'assistant'), conversationId: `conv-${agent.id}-70` },
      ]);
      expect((await store().getMessage(answerId))?.conversationId).toBe(`conv-${agent.id}-70`);
    });
  });
}
