import { createHash, timingSafeEqual } from 'node:crypto';
import type { RagdeskContext } from '../context.js';
import { notFound, RagdeskError } from '../errors.js';
import type { ConversationRecord, MessageRecord } from '../ports/agent-key-usage-records.js';
import type { ConversationFilter } from '../ports/store.js';
import { nowIso } from '../util/ids.js';
import { idSchema, parseInput } from '../validation.js';
import { decodeListCursor, encodeListCursor } from './list-cursor.js';
import {
  conversationListSchema,
  conversationLookupSchema,
  conversationReadSchema,
  messageFeedbackSchema,
  type ConversationListInput,
  type ConversationLookupInput,
  type ConversationReadInput,
  type MessageFeedbackInput,
} from './conversation-schemas.js';
import type {
  Conversation,
  ConversationMessage,
  ConversationPage,
  ConversationSummary,
  ConversationWithMessages,
} from './conversation-types.js';

const PREVIEW_CHARS = 200;

/**
 * `ragdesk.agents.conversations`: read, list, delete conversations and mark answers. Calls are the
 * owner's (any conversation of the instance); a `visitorId` narrows a call to that visitor's
 * conversation, and any other conversation then answers `not_found` exactly like an unknown id.
 *
 * Conversation ids are unique within their agent only, so an id given alone may name conversations
 * of several agents: `agentId` picks one, and without it a call that finds more than one answers
 * `conflict` naming `agentId`.
 */
export class ConversationService {
  /** @internal Created by `createRagdesk`. */
  constructor(private readonly context: RagdeskContext) {}

  /** The conversation with one page of its messages, newest first. Throws `not_found`. */
  async get(id: string, input: ConversationReadInput = {}): Promise<ConversationWithMessages> {
    const options = parseInput(conversationReadSchema, input, 'conversation read');
    const record = await this.record(id, options);
    const all = await this.context.accounts.listMessages(record.agentId, record.id);
    // The reference's client sends `cursor=` (empty) for the first page.
    const start = options.cursor ? all.findIndex((message) => message.id === options.cursor) + 1 : 0;
    const page = start === 0 && options.cursor ? [] : all.slice(start, start + options.limit);
    const last = page.at(-1);
    return {
      ...toConversation(record),
      messages: page.map(toConversationMessage),
      nextCursor: last !== undefined && start + page.length < all.length ? last.id : null,
    };
  }

  /**
   * The conversation, or null when there is none (or, with `visitorId`, it is someone else's).
   * Throws `conflict` when several agents have one with this id and no `agentId` says which.
   */
  async find(id: string, input: ConversationLookupInput = {}): Promise<Conversation | null> {
    const record = await this.recordOrNull(id, parseInput(conversationLookupSchema, input, 'conversation lookup'));
    return record === null ? null : toConversation(record);
  }

  /**
   * Every conversation with this id, whichever agent holds it (with `agentId`, at most that agent's;
   * with `visitorId`, only that visitor's), oldest first. For callers that decide themselves which
   * of them a reader may see, such as the HTTP adapter.
   */
  async findAll(id: string, input: ConversationLookupInput = {}): Promise<Conversation[]> {
    const records = await this.records(id, parseInput(conversationLookupSchema, input, 'conversation lookup'));
    return records.map(toConversation);
  }

  /** An agent's conversations, newest activity first, filtered, one page at a time. */
  async list(agentId: string, input: ConversationListInput = {}): Promise<ConversationPage> {
    parseInput(idSchema, agentId, 'agent id');
    const options = parseInput(conversationListSchema, input, 'conversation list');
    this.context.assertOpen();
    if (!(await this.context.accounts.getAgent(agentId))) throw notFound('agent', agentId);
    const filter: ConversationFilter = { agentId, limit: options.limit + 1 };
    if (options.visitorId !== undefined) filter.visitorId = options.visitorId;
    if (options.channel !== undefined) filter.channel = options.channel;
    if (options.from !== undefined) filter.updatedFrom = options.from;
    if (options.to !== undefined) filter.updatedTo = options.to;
    if (options.feedback !== undefined) filter.feedback = options.feedback;
    if (options.cursor) filter.after = decodeListCursor(options.cursor);
    const found = await this.context.accounts.findConversations(filter);
    const page = found.slice(0, options.limit);
    const last = page.at(-1);
    return {
      conversations: await Promise.all(page.map((record) => this.summary(record))),
      nextCursor: found.length > options.limit && last !== undefined ? encodeListCursor(last) : null,
    };
  }

  /**
   * Deletes the conversation and its messages; returns it as it was (without messages). Throws
   * `not_found`, and `conflict` when several agents have one with this id and no `agentId` says which.
   */
  async delete(id: string, input: Pick<ConversationLookupInput, 'agentId'> = {}): Promise<Conversation> {
    const record = await this.record(id, parseInput(conversationLookupSchema, input, 'conversation lookup'));
    if (!(await this.context.accounts.deleteConversation(record.agentId, record.id))) throw notFound('conversation', id);
    return toConversation(record);
  }

  /** The conversation a message belongs to, or null when the message is unknown. */
  async conversationOfMessage(messageId: string): Promise<Conversation | null> {
    parseInput(idSchema, messageId, 'message id');
    this.context.assertOpen();
    const record = await this.context.accounts.getMessageConversation(messageId);
    return record === null ? null : toConversation(record);
  }

  /**
   * Marks an answer `good` or `bad` (null clears the mark), with an optional comment. With
   * `visitorId`, only that visitor's conversation. Throws `not_found` for an unknown (or someone
   * else's) message, `invalid_request` for a question.
   */
  async setFeedback(messageId: string, input: MessageFeedbackInput): Promise<ConversationMessage> {
    parseInput(idSchema, messageId, 'message id');
    const feedback = parseInput(messageFeedbackSchema, input, 'message feedback');
    this.context.assertOpen();
    const message = await this.context.accounts.getMessage(messageId);
    const conversation = message === null ? null : await this.context.accounts.getMessageConversation(messageId);
    const readable = conversation !== null && (feedback.visitorId === undefined || sameSecret(feedback.visitorId, conversation.visitorId));
    if (message === null || !readable) throw notFound('message', messageId);
    if (message.role !== 'assistant') {
      throw new RagdeskError('invalid_request', 'Only answers take feedback; this message is a question', {
        details: { issues: [{ path: 'messageId', message: 'is a question, not an answer' }] },
      });
    }
    const comment = feedback.comment?.trim() || null;
    const value = feedback.eval === null ? null : { value: feedback.eval, comment, createdAt: nowIso() };
    const updated = await this.context.accounts.setMessageFeedback(message.id, value);
    if (updated === null) throw notFound('message', messageId);
    return toConversationMessage(updated);
  }

  private async summary(record: ConversationRecord): Promise<ConversationSummary> {
    const messages = await this.context.accounts.listMessages(record.agentId, record.id);
    const first = messages.findLast((message) => message.role === 'user');
    const count = (value: 'good' | 'bad') => messages.filter((message) => message.feedback?.value === value).length;
    return {
      ...toConversation(record),
      messageCount: messages.length,
      feedback: { good: count('good'), bad: count('bad') },
      preview: first === undefined ? '' : first.text.slice(0, PREVIEW_CHARS),
    };
  }

  private async record(id: string, lookup: Lookup): Promise<ConversationRecord> {
    const record = await this.recordOrNull(id, lookup);
    if (record === null) throw notFound('conversation', id);
    return record;
  }

  private async recordOrNull(id: string, lookup: Lookup): Promise<ConversationRecord | null> {
    const found = await this.records(id, lookup);
    if (found.length > 1) throw severalConversations(id);
    return found[0] ?? null;
  }

  /** The conversations `id` names for this lookup: one agent's with `agentId`, else any agent's. */
  private async records(id: string, lookup: Lookup): Promise<ConversationRecord[]> {
    parseInput(idSchema, id, 'conversation id');
    this.context.assertOpen();
    const { accounts: store } = this.context;
    let candidates: ConversationRecord[];
    if (lookup.agentId === undefined) candidates = await store.listConversationsWithId(id);
    else {
      const one = await store.getConversation(lookup.agentId, id);
      candidates = one === null ? [] : [one];
    }
    const { visitorId } = lookup;
    return visitorId === undefined ? candidates : candidates.filter((record) => sameSecret(visitorId, record.visitorId));
  }
}

type Lookup = { agentId?: string | undefined; visitorId?: string | undefined };

/** The `conflict` of an id that several agents' conversations have, naming the field that picks one. */
function severalConversations(id: string): RagdeskError {
  return new RagdeskError('conflict', `Several agents have a conversation ${JSON.stringify(id)}; say which with agentId`, {
    details: { issues: [{ path: 'agentId', message: 'required: more than one conversation has this id' }] },
  });
}

/** Compares digests, so the time taken says nothing about how much of a visitor id matched. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function toConversation(record: ConversationRecord): Conversation {
  return {
    id: record.id,
    agentId: record.agentId,
    visitorId: record.visitorId,
    channel: record.channel ?? null,
    contact: record.contact ? { ...record.contact } : null,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

function toConversationMessage(message: MessageRecord): ConversationMessage {
  return {
    id: message.id,
    conversationId: message.conversationId,
    from: message.role === 'user' ? 'human' : 'agent',
    text: message.text,
    sources: message.sources,
    createdAt: message.createdAt,
    eval: message.feedback?.value ?? null,
    evalComment: message.feedback?.comment ?? null,
  };
}
