import { z } from 'zod';
import { idSchema } from '../validation.js';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** An ISO date or date-time; a bare date ends at the end of that day when it is an upper bound. */
const instant = (endOfDay: boolean) =>
  z
    .string()
    .max(40)
    .refine((value) => /^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(Date.parse(value)), 'must be an ISO date or date-time')
    .transform((value) => new Date(DAY.test(value) && endOfDay ? `${value}T23:59:59.999Z` : value).toISOString());

/** `conversations.list` options (also the query string of the HTTP listing). */
export const conversationListSchema = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().max(500).optional(),
    visitorId: z.string().min(1).max(200).optional(),
    channel: z.string().min(1).max(200).optional(),
    /** Last activity at or after this time. */
    from: instant(false).optional(),
    /** Last activity at or before this time. */
    to: instant(true).optional(),
    /** `good` / `bad`: has an answer marked so; `any`: has a marked answer; `none`: has none. */
    feedback: z.enum(['good', 'bad', 'any', 'none']).optional(),
  })
  .strict();

export type ConversationListInput = z.input<typeof conversationListSchema>;

/** `conversations.get` options (also the query string of the HTTP read). */
export const conversationReadSchema = z
  .object({
    /** At most this many messages, newest first (default 50). */
    limit: z.coerce.number().int().min(1).max(200).default(50),
    /** The id of the last message of the previous page: the older ones follow. */
    cursor: z.string().max(200).optional(),
    /** When given, the conversation must be this visitor's (else it answers `not_found`). */
    visitorId: z.string().max(200).optional(),
    /** The agent whose conversation this is: needed when several agents have a conversation with the id. */
    agentId: idSchema.optional(),
  })
  .strict();

export type ConversationReadInput = z.input<typeof conversationReadSchema>;

/** Which conversation an id names when it is given alone: `conversations.find`, `findAll` and `delete`. */
export const conversationLookupSchema = z
  .object({
    agentId: idSchema.optional(),
    visitorId: z.string().max(200).optional(),
  })
  .strict();

export type ConversationLookupInput = z.input<typeof conversationLookupSchema>;

/** Feedback on one answer: the reference's `eval`, a comment, and who gives it. */
export const messageFeedbackSchema = z
  .object({
    /** `good` or `bad`; null removes the mark. */
    eval: z.enum(['good', 'bad']).nullable(),
    comment: z.string().max(2_000).nullable().optional(),
    /** A visitor's id: needed when the caller does not own the agent. */
    visitorId: z.string().max(200).optional(),
  })
  .strict();

export type MessageFeedbackInput = z.input<typeof messageFeedbackSchema>;

/** The reference's `POST /api/conversations/eval-answer` body. */
export const evalAnswerSchema = messageFeedbackSchema.extend({ messageId: idSchema });
