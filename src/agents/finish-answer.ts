import type { RagdeskContext } from '../context.js';
import { RagdeskError } from '../errors.js';
import type { MessageRecord } from '../ports/agent-key-usage-records.js';
import type { ChatModel, ChatUsage, FinishReason } from '../ports/chat-model.js';
import { newId, nowIso } from '../util/ids.js';
import type { AgentOptions } from './agent-options.js';
import type { AgentResponse } from './agent.js';
import type { PreparedQuery } from './prepare-query.js';
import { costOf } from './pricing.js';

export interface ModelOutcome {
  text: string;
  usage: ChatUsage;
  finishReason: FinishReason;
  warnings: readonly string[];
}

/**
 * Persists the question and the answer together (one `appendMessages`, after the conversation
 * exists) and builds the response. Called only once the model finished, so an aborted or failed
 * answer never becomes a stored message.
 */
export async function finishAnswer(
  context: RagdeskContext,
  chat: ChatModel,
  options: AgentOptions,
  prepared: PreparedQuery,
  outcome: ModelOutcome,
): Promise<AgentResponse> {
  const warnings = [...prepared.warnings, ...outcome.warnings];
  if (outcome.finishReason === 'length') warnings.push('the answer was cut at maxTokens');
  if (outcome.finishReason === 'content_filter') warnings.push('the model stopped on its content filter');
  const { promptTokens, completionTokens } = outcome.usage;
  const cost = costOf(options.prices, prepared.modelId, promptTokens, completionTokens);
  if (cost === null && !chat.name.startsWith('local')) warnings.push(`no price known for model ${prepared.modelId}; cost reported as 0`);
  const usage = { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, cost: cost ?? 0 };

  const { conversation } = prepared;
  const answeredAt = nowIso();
  const question: MessageRecord = {
    id: newId(),
    conversationId: conversation.id,
    role: 'user',
    text: prepared.query,
    sources: [],
    usage: null,
    model: null,
    visitorId: conversation.visitorId,
    createdAt: prepared.startedAt,
  };
  const answer: MessageRecord = {
    id: newId(),
    conversationId: conversation.id,
    role: 'assistant',
    text: outcome.text,
    sources: prepared.sources,
    usage,
    model: modelLabel(chat, prepared.modelId),
    visitorId: conversation.visitorId,
    createdAt: answeredAt < prepared.startedAt ? prepared.startedAt : answeredAt,
  };
  if (prepared.isNewConversation) await createConversationOnce(context, prepared);
  await context.accounts.appendMessages(conversation.agentId, conversation.id, [question, answer]);
  return {
    answer: outcome.text,
    conversationId: conversation.id,
    visitorId: conversation.visitorId,
    sources: prepared.sources,
    messageId: answer.id,
    usage,
    model: modelLabel(chat, prepared.modelId),
    finishReason: outcome.finishReason,
    warnings,
    ...(prepared.rerank ? { rerank: prepared.rerank } : {}),
  };
}

/** `openai` + `gpt-4o-mini` → `openai:gpt-4o-mini`; a local answerer names itself fully. */
function modelLabel(chat: ChatModel, modelId: string): string {
  const adapter = chat.name.split(':')[0] ?? chat.name;
  return chat.resolveModel ? `${adapter}:${modelId}` : chat.name;
}

/** Two first queries racing on one client-chosen conversation id both succeed into one conversation. */
async function createConversationOnce(context: RagdeskContext, prepared: PreparedQuery): Promise<void> {
  try {
    await context.accounts.createConversation(prepared.conversation);
  } catch (error) {
    if (!(RagdeskError.isInstance(error) && error.code === 'conflict')) throw error;
    // Conversation ids are per agent, so a conflict is always this agent's own conversation.
    const existing = await context.accounts.getConversation(prepared.agent.id, prepared.conversation.id);
    if (existing === null) throw error;
  }
}
