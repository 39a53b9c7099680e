import type { Tokenizer } from '../ingest/tokenizer.js';
import type { MessageRecord } from '../ports/agent-key-usage-records.js';
import type { ChatMessage } from '../ports/chat-model.js';
import type { AccountStore } from '../ports/store.js';
import { MESSAGE_OVERHEAD_TOKENS, takeWithinBudget } from './budget.js';

/** Messages read per query; with a token budget far below this, older ones never fit anyway. */
const MEMORY_SCAN_LIMIT = 100;

/**
 * The conversation so far, as chat messages oldest first, keeping the newest messages that fit the
 * budget: when the budget is short, the oldest are dropped first. A question is only kept with its
 * answer, so the model never sees an unanswered turn from the past.
 */
export async function loadMemory(
  store: AccountStore,
  conversation: { agentId: string; id: string },
  budget: number,
  tokenizer: Tokenizer,
): Promise<ChatMessage[]> {
  if (budget <= 0) return [];
  const newestFirst = await store.listMessages(conversation.agentId, conversation.id, { limit: MEMORY_SCAN_LIMIT });
  const turns = pairTurns(newestFirst);
  const kept = takeWithinBudget(turns, budget, (turn) =>
    turn.reduce((sum, message) => sum + tokenizer.count(message.text) + MESSAGE_OVERHEAD_TOKENS, 0),
  );
  return kept.reverse().flatMap((turn) => turn.map((message) => ({ role: message.role, content: message.text })));
}

/** One earlier turn a caller supplies instead of the stored conversation (see `AgentCallOptions.history`). */
export interface HistoryMessage {
  role: 'user' | 'assistant';
  content: string;
}

/**
 * Caller-supplied history within the budget: the newest messages that fit, the oldest dropped first.
 * The scan stops at the first message that does not fit, so only what is kept (plus one) is counted.
 */
export function fitHistory(messages: readonly HistoryMessage[], budget: number, tokenizer: Tokenizer): ChatMessage[] {
  if (budget <= 0) return [];
  const newestFirst = [...messages].reverse();
  const kept = takeWithinBudget(newestFirst, budget, (message) => tokenizer.count(message.content) + MESSAGE_OVERHEAD_TOKENS);
  return kept.reverse().map((message) => ({ role: message.role, content: message.content }));
}

/** Groups newest-first messages into [user, assistant] turns, newest turn first. */
function pairTurns(newestFirst: readonly MessageRecord[]): MessageRecord[][] {
  const turns: MessageRecord[][] = [];
  for (let i = 0; i < newestFirst.length; i++) {
    const message = newestFirst[i]!;
    const previous = newestFirst[i + 1];
    if (message.role === 'assistant' && previous?.role === 'user') {
      turns.push([previous, message]);
      i++;
    } else {
      turns.push([message]);
    }
  }
  return turns;
}
