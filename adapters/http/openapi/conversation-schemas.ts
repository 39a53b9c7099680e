import { z } from 'zod';
import type { Conversation, ConversationMessage, ConversationPage } from '../../../src/index.js';
import type { ConversationWire } from '../conversation-wire.js';
import { sourceEntrySchema } from './response-schemas.js';

/** What the conversation routes answer, for the OpenAPI document (checked against the types below). */
const timestamp = z.string().describe('ISO-8601 date-time, UTC');

const contactSchema = z.object({
  email: z.string().optional(),
  phoneNumber: z.string().optional(),
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  userId: z.string().optional(),
});

export const conversationSchema = z.object({
  id: z.string(),
  agentId: z.string(),
  visitorId: z.string(),
  channel: z.string().nullable().describe('The `channel` the first message named; null when none'),
  contact: contactSchema.nullable(),
  createdAt: timestamp,
  updatedAt: timestamp.describe('Time of the last message'),
});

export const conversationMessageSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  from: z.enum(['human', 'agent']).describe('`human`: a question; `agent`: an answer'),
  text: z.string(),
  sources: z.array(sourceEntrySchema),
  createdAt: timestamp,
  eval: z.enum(['good', 'bad']).nullable().describe('Feedback on an answer; null when unmarked'),
  evalComment: z.string().nullable(),
});

export const conversationWithMessagesSchema = conversationSchema.extend({
  messages: z.array(conversationMessageSchema).describe('Newest first'),
  nextCursor: z.string().nullable().describe('`cursor` for the older messages; null when none are left'),
  status: z.literal('UNRESOLVED'),
  isAiEnabled: z.literal(true),
});

export const conversationPageSchema = z.object({
  conversations: z.array(
    conversationSchema.extend({
      messageCount: z.int(),
      feedback: z.object({ good: z.int(), bad: z.int() }).describe('How many answers were marked good and bad'),
      preview: z.string().describe('The first question, up to 200 characters'),
    }),
  ),
  nextCursor: z.string().nullable().describe('`cursor` for the next page; null on the last one'),
});

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// Each line fails to compile when the response type and its schema disagree.
const _DRIFT_CHECKS: [
  Same<z.output<typeof conversationSchema>, Conversation>,
  Same<z.output<typeof conversationMessageSchema>, ConversationMessage>,
  Same<z.output<typeof conversationWithMessagesSchema>, ConversationWire>,
  Same<z.output<typeof conversationPageSchema>, ConversationPage>,
] = [true, true, true, true];
