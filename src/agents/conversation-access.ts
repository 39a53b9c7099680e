/**
 * Which conversation a query continues. Conversation ids are per agent: the id names a
 * conversation of this agent only, so another agent's (or another owner's) conversation with the
 * same id is neither found nor in the way. A conversation of the agent is continued, for visitors,
 * only with the visitorId it was started with. Any other id — unknown to this agent, or someone
 * else's — starts a new conversation under a fresh id, so the answer is the same whether the id
 * exists or not, and a stranger who learns an id can neither read the memory behind it nor add to
 * it.
 *
 * Visitors never choose the id of a new conversation (the reference chat widget sends an id of its
 * own on the first message and then adopts the one in the answer), so nobody can claim an id before
 * the caller it was meant for. The owner (and library calls) may: an id this agent has no
 * conversation under starts one under that id, whoever else uses it, and the owner continues any
 * conversation of its agent.
 */
import type { RagdeskContext } from '../context.js';
import { RagdeskError } from '../errors.js';
import type { AgentRecord, ConversationRecord } from '../ports/agent-key-usage-records.js';
import { newId, nowIso } from '../util/ids.js';
import type { AgentCaller } from './override-policy.js';

export interface ConversationChoice {
  conversation: ConversationRecord;
  isNew: boolean;
}

export async function resolveConversation(
  context: RagdeskContext,
  agent: AgentRecord,
  query: { conversationId?: string | undefined; visitorId?: string | undefined },
  caller: AgentCaller,
): Promise<ConversationChoice> {
  const requested = query.conversationId;
  const existing = requested === undefined ? null : await context.accounts.getConversation(agent.id, requested);
  if (existing) {
    if (caller === 'visitor') {
      if (query.visitorId !== undefined && query.visitorId === existing.visitorId) return { conversation: existing, isNew: false };
    } else {
      if (query.visitorId !== undefined && query.visitorId !== existing.visitorId) {
        throw new RagdeskError('invalid_request', `Conversation ${existing.id} belongs to another visitor`, {
          details: { issues: [{ path: 'visitorId', message: 'does not match the conversation' }] },
        });
      }
      return { conversation: existing, isNew: false };
    }
  }
  // The owner's chosen id is used when this agent has no conversation with it; a visitor's never is.
  const id = caller === 'owner' && requested !== undefined && existing === null ? requested : newId();
  const now = nowIso();
  return {
    conversation: { id, agentId: agent.id, visitorId: query.visitorId ?? newId(), createdAt: now, updatedAt: now },
    isNew: true,
  };
}
