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

/** Conversations and their messages (Store conformance: `conversations and messages`). */
export interface ConversationStore {
  /** Inserts a conversation. Throws `conflict` on a duplicate id, `not_found` when its agent is unknown. */
  createConversation(record: ConversationRecord): Promise<void>;
  getConversation(id: string): Promise<ConversationRecord | null>;
  /** Conversations of an agent, oldest first. */
  listConversations(agentId: string): Promise<ConversationRecord[]>;
  /**
   * Conversations of an agent matching the filter, newest activity first: `updatedAt` descending,
   * then `id` descending.
   */
  findConversations(filter: ConversationFilter): Promise<ConversationRecord[]>;
  /** Deletes a conversation with its messages; false when there was none. */
  deleteConversation(id: string): Promise<boolean>;
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
  getMessage(id: string): Promise<MessageRecord | null>;
  /** Sets (or with null clears) a message's feedback; returns the message as stored, null when unknown. */
  setMessageFeedback(id: string, feedback: MessageFeedback | null): Promise<MessageRecord | null>;
}
