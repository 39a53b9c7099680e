/** Lifecycle part of the account store conformance suite (`StoreLifecycle.close`). */
import { describe, it } from 'vitest';
import type { AccountStore } from '../ports/store.js';
import { isoAt, makeAgent, makeApiKey, makeConversation, makeMessage } from './fixtures.js';
import { expectCode, type StoreSuiteContext } from './store-harness.js';

export function describeAccountCloseConformance(context: StoreSuiteContext<AccountStore>): void {
  describe('close', () => {
    it('is idempotent, and afterwards every method rejects with closed', async () => {
      const closing = context.store();
      const agent = makeAgent();
      const conversation = makeConversation(agent, 1);
      await closing.createAgent(agent);
      await closing.close();
      await closing.close();
      const calls: Array<() => Promise<unknown>> = [
        () => closing.createAgent(makeAgent({ name: 'After' })),
        () => closing.getAgent(agent.id),
        () => closing.listAgents(),
        () => closing.updateAgent(agent.id, { name: 'x' }),
        () => closing.deleteAgent(agent.id),
        () => closing.createConversation(conversation),
        () => closing.getConversation(agent.id, conversation.id),
        () => closing.listConversations(agent.id),
        () => closing.findConversations({ agentId: agent.id, limit: 5 }),
        () => closing.listConversationsWithId(conversation.id),
        () => closing.deleteConversation(agent.id, conversation.id),
        () => closing.appendMessages(agent.id, conversation.id, [makeMessage(conversation, 2, 'user')]),
        () => closing.listMessages(agent.id, conversation.id),
        () => closing.getMessage('message'),
        () => closing.getMessageConversation('message'),
        () => closing.setMessageFeedback('message', null),
        () => closing.createApiKey(makeApiKey('owner-a')),
        () => closing.getApiKey('key'),
        () => closing.findApiKeyByHash('hash'),
        () => closing.listApiKeys(),
        () => closing.updateApiKey('key', { name: 'x' }),
        () => closing.consumeUsage({ subject: 'owner-a', metric: 'q', period: 'p', amount: 1, limit: 2 }),
        () => closing.getUpload('rdu_x'),
        () => closing.completeUpload('rdu_x', { bytes: new Uint8Array(1), at: isoAt(1) }),
        () => closing.getUploadBytes('rdu_x'),
        () => closing.deleteUploadsBefore(isoAt(1)),
      ];
      for (const call of calls) await expectCode(call(), 'closed');
    });
  });
}
