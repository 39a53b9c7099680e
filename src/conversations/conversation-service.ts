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
  conversationReadSchema,
  messageFeedbackSchema,
  type ConversationListInput,
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
 */
export class ConversationService {
  /** @internal Created by `createRagdesk`. */
  constructor(private readonly context: RagdeskContext) {}

  /** The conversation with one page of its messages, newest first. Throws `not_found`. */
  async get(id: string, input: ConversationReadInput = {}): Promise<ConversationWithMessages> {
    const options = parseInput(conversationReadSchema, input, 'conversation read');
    const record = await this.record(id, options.visitorId);
    const all = await this.context.store.listMessages(record.id);
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

  /** The conversation, or null when there is none (or, with `visitorId`, it is someone else's). */
  async find(id: string, options: { visitorId?: string } = {}): Promise<Conversation | null> {
    const record = await this.recordOrNull(id, options.visitorId);
    return record === null ? null : toConversation(record);
  }

  /** An agent's conversations, newest activity first, filtered, one page at a time. */
  async list(agentId: string, input: ConversationListInput = {}): Promise<ConversationPage> {
    parseInput(idSchema, agentId, 'agent id');
    const options = parseInput(conversationListSchema, input, 'conversation list');
    this.context.assertOpen();
    if (!(await this.context.store.getAgent(agentId))) throw notFound('agent', agentId);
    const filter: ConversationFilter = { agentId, limit: options.limit + 1 };
    if (options.visitorId !== undefined) filter.visitorId = options.visitorId;
    if (options.channel !== undefined) filter.channel = options.channel;
    if (options.from !== undefined) filter.updatedFrom = options.from;
    if (options.to !== undefined) filter.updatedTo = options.to;
    if (options.feedback !== undefined) filter.feedback = options.feedback;
    if (options.cursor) filter.after = decodeListCursor(options.cursor);
    const found = await this.context.store.findConversations(filter);
    const page = found.slice(0, options.limit);
    const last = page.at(-1);
    return {
      conversations: await Promise.all(page.map((record) => this.summary(record))),
      nextCursor: found.length > options.limit && last !== undefined ? encodeListCursor(last) : null,
    };
  }

  /** Deletes the conversation and its messages; returns it as it was (without messages). Throws `not_found`. */
  async delete(id: string): Promise<Conversation> {
    const record = await this.record(id, undefined);
    if (!(await this.context.store.deleteConversation(record.id))) throw notFound('conversation', id);
    return toConversation(record);
  }

  /** The conversation a message belongs to, or null when the message is unknown. */
  async conversationOfMessage(messageId: string): Promise<Conversation | null> {
    parseInput(idSchema, messageId, 'message id');
    this.context.assertOpen();
    const message = await this.context.store.getMessage(messageId);
    if (message === null) return null;
    const record = await this.context.store.getConversation(message.conversationId);
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
    const message = await this.context.store.getMessage(messageId);
    const conversation = message === null ? null : await this.recordOrNull(message.conversationId, feedback.visitorId);
    if (message === null || conversation === null) throw notFound('message', messageId);
    if (message.role !== 'assistant') {
      throw new RagdeskError('invalid_request', 'Only answers take feedback; this message is a question', {
        details: { issues: [{ path: 'messageId', message: 'is a question, not an answer' }] },
      });
    }
    const comment = feedback.comment?.trim() || null;
    const value = feedback.eval === null ? null : { value: feedback.eval, comment, createdAt: nowIso() };
    const updated = await this.context.store.setMessageFeedback(message.id, value);
    if (updated === null) throw notFound('message', messageId);
    return toConversationMessage(updated);
  }

  private async summary(record: ConversationRecord): Promise<ConversationSummary> {
    const messages = await this.context.store.listMessages(record.id);
    const first = messages.findLast((message) => message.role === 'user');
    const count = (value: 'good' | 'bad') => messages.filter((message) => message.feedback?.value === value).length;
    return {
      ...toConversation(record),
      messageCount: messages.length,
      feedback: { good: count('good'), bad: count('bad') },
      preview: first === undefined ? '' : first.text.slice(0, PREVIEW_CHARS),
    };
  }

  private async record(id: string, visitorId: string | undefined): Promise<ConversationRecord> {
    const record = await this.recordOrNull(id, visitorId);
    if (record === null) throw notFound('conversation', id);
    return record;
  }

  private async recordOrNull(id: string, visitorId: string | undefined): Promise<ConversationRecord | null> {
    parseInput(idSchema, id, 'conversation id');
    this.context.assertOpen();
    const record = await this.context.store.getConversation(id);
    if (record === null) return null;
    if (visitorId !== undefined && !sameSecret(visitorId, record.visitorId)) return null;
    return record;
  }
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
