import type { ConversationRecord, MessageFeedback, MessageRecord } from '../agent-key-usage-records.js';

/** Which conversations of an agent `findConversations` returns. */
export interface ConversationFilter {
  agentId: string;
  visitorId?: string;
  channel?: string;
  /** Last activity (`updatedAt`) at or after this ISO time. */
  updatedFrom?: string;
  /** Last activity (`updatedAt`) at or before this ISO time. */
  updatedTo?: string;
  /** `good` / `bad`: holds a message marked so; `any`: holds a marked message; `none`: holds none. */
  feedback?: 'good' | 'bad' | 'any' | 'none';
  /** Continue after this conversation in the order below (keyset paging). */
  after?: { updatedAt: string; id: string };
  /** At most this many (at least 1). */
  limit: number;
}

/**
 * Conversations and their messages (Store conformance: `conversations and messages`). A
 * conversation id is unique within its agent only (callers may choose it), so every lookup names
 * the agent too: another agent's conversation with the same id is a different conversation, and
 * never found through this one.
 */
export interface ConversationStore {
  /** Inserts a conversation. Throws `conflict` when its agent has one with this id, `not_found` when its agent is unknown. */
  createConversation(record: ConversationRecord): Promise<void>;
  /** The conversation `id` of agent `agentId`, or null. */
  getConversation(agentId: string, id: string): Promise<ConversationRecord | null>;
  /** Conversations of an agent, oldest first. */
  listConversations(agentId: string): Promise<ConversationRecord[]>;
  /**
   * Conversations of an agent matching the filter, newest activity first: `updatedAt` descending,
   * then `id` descending.
   */
  findConversations(filter: ConversationFilter): Promise<ConversationRecord[]>;
  /**
   * Every conversation with this id, whichever agent holds it, oldest first: for a reader who names
   * a conversation by its id alone and may read some of them (the caller filters).
   */
  listConversationsWithId(id: string): Promise<ConversationRecord[]>;
  /** Deletes a conversation of `agentId` with its messages; false when there was none. */
  deleteConversation(agentId: string, id: string): Promise<boolean>;
  /**
   * Appends messages to a conversation of `agentId` and sets its `updatedAt` to the last message's
   * `createdAt`, all in one step (a question and its answer land together or not at all). Throws
   * `not_found` when the agent has no such conversation and `conflict` on a duplicate message id
   * (message ids are unique across all conversations; the store's callers generate them).
   */
  appendMessages(agentId: string, conversationId: string, messages: readonly MessageRecord[]): Promise<void>;
  /**
   * The most recent messages of a conversation of `agentId`, newest first (ties broken by
   * insertion order, later first), at most `limit` (all when omitted).
   */
  listMessages(agentId: string, conversationId: string, options?: { limit?: number }): Promise<MessageRecord[]>;
  /** A message by its id (message ids are unique across all conversations), or null. */
  getMessage(id: string): Promise<MessageRecord | null>;
  /** The conversation holding this message, or null when the message is unknown. */
  getMessageConversation(messageId: string): Promise<ConversationRecord | null>;
  /** Sets (or with null clears) a message's feedback; returns the message as stored, null when unknown. */
  setMessageFeedback(id: string, feedback: MessageFeedback | null): Promise<MessageRecord | null>;
}
