import type { ConversationContact, SourceEntry } from '../ports/agent-key-usage-records.js';

/** One message of a conversation as readers see it (the reference's `from` / `text` shape). */
export interface ConversationMessage {
  id: string;
  conversationId: string;
  /** `human`: the visitor's question; `agent`: the answer. */
  from: 'human' | 'agent';
  text: string;
  /** Sources of an answer; empty for questions. */
  sources: SourceEntry[];
  createdAt: string;
  /** A reader's mark on an answer, null when unmarked. */
  eval: 'good' | 'bad' | null;
  /** The comment given with the mark, null when none. */
  evalComment: string | null;
}

/** A conversation without its messages. */
export interface Conversation {
  id: string;
  agentId: string;
  visitorId: string;
  /** The `channel` the first message named (`website`, `dashboard`, ...); null when none. */
  channel: string | null;
  contact: ConversationContact | null;
  createdAt: string;
  /** Time of the last message. */
  updatedAt: string;
}

/** A conversation with one page of its messages, newest first. */
export interface ConversationWithMessages extends Conversation {
  messages: ConversationMessage[];
  /** Pass as `cursor` for the older messages; null when this page reaches the first one. */
  nextCursor: string | null;
}

/** A conversation in a listing: counts and the first question, to pick one to read. */
export interface ConversationSummary extends Conversation {
  messageCount: number;
  /** How many answers were marked `good` and `bad`. */
  feedback: { good: number; bad: number };
  /** The first question, cut to 200 characters. */
  preview: string;
}

export interface ConversationPage {
  conversations: ConversationSummary[];
  /** Pass as `cursor` for the next page; null on the last one. */
  nextCursor: string | null;
}
