import { z } from 'zod';
import type { completionBody, modelOf } from '../openai-compat/wire.js';
import { sourceEntrySchema } from './response-schemas.js';

/**
 * The answers of the chat-client routes (OpenAI-compatible), for the OpenAPI document; the checks
 * at the bottom fail the build when the code's shapes change without these.
 */
const usage = z.object({ prompt_tokens: z.int(), completion_tokens: z.int(), total_tokens: z.int() });

const ragdeskExtra = z
  .object({
    sources: z.array(sourceEntrySchema),
    conversationId: z.string(),
    visitorId: z.string(),
    messageId: z.string(),
    model: z.string().describe('The chat adapter and model that answered'),
    cost: z.number(),
    warnings: z.array(z.string()),
  })
  .describe("ragdesk's additions: the sources of the answer, the stored conversation, warnings");

export const chatCompletionSchema = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.int(),
  model: z.string().describe('The `model` of the request'),
  choices: z.array(
    z.object({
      index: z.int(),
      message: z.object({ role: z.literal('assistant'), content: z.string(), refusal: z.null() }),
      logprobs: z.null(),
      finish_reason: z.enum(['stop', 'length', 'content_filter']),
    }),
  ),
  usage,
  system_fingerprint: z.null(),
  ragdesk: ragdeskExtra,
});

const modelSchema = z.object({
  id: z.string().describe('`@handle`, or the agent id for an agent without a handle; either may be sent as `model`'),
  object: z.literal('model'),
  created: z.int(),
  owned_by: z.string(),
  name: z.string(),
  description: z.string(),
  agent_id: z.string(),
});

export const modelListSchema = z.object({ object: z.literal('list'), data: z.array(modelSchema) });

export const openaiErrorSchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.string().describe('OpenAI error type: invalid_request_error, authentication_error, permission_error, ...'),
    code: z.string().describe("ragdesk's stable error code"),
    param: z.string().nullable().describe('The first field a 400 names'),
    details: z.record(z.string(), z.unknown()),
  }),
});

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Json<T> = T extends object ? { [K in keyof T]: Json<T[K]> } : T;
const _DRIFT_CHECKS: [
  Same<z.output<typeof chatCompletionSchema>, Json<ReturnType<typeof completionBody>>>,
  Same<z.output<typeof modelSchema>, ReturnType<typeof modelOf>>,
] = [true, true];
