import type { ConversationRecord, MessageRecord } from '../agent-key-usage-records.js';

/** Conversations and their messages (Store conformance: `conversations and messages`). */
export interface ConversationStore {
  /** Inserts a conversation. Throws `conflict` on a duplicate id, `not_found` when its agent is unknown. */
  createConversation(record: ConversationRecord): Promise<void>;
  getConversation(id: string): Promise<ConversationRecord | null>;
  /** Conversations of an agent, oldest first. */
  listConversations(agentId: string): Promise<ConversationRecord[]>;
  /**
   * Appends messages to a conversation and sets its `updatedAt` to the last message's `createdAt`,
   * all in one step (a question and its answer land together or not at all). Throws `not_found`
   * when the conversation is unknown and `conflict` on a duplicate message id.
   */
  appendMessages(conversationId: string, messages: readonly MessageRecord[]): Promise<void>;
  /**
   * The most recent messages of a conversation, newest first (ties broken by insertion order,
   * later first), at most `limit` (all when omitted).
   */
  listMessages(conversationId: string, options?: { limit?: number }): Promise<MessageRecord[]>;
}
