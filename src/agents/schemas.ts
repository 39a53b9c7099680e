import { rerankSchema } from '../datastores/rerank.js';
import { z } from 'zod';
import { idSchema, nonBlankString } from '../validation.js';
import { allowOverridesSchema } from './override-policy.js';
import { agentFiltersSchema, clientQueryFields, optionalId } from './client-fields.js';
import { agentSettingsFields } from './agent-settings.js';

/**
 * Model names of agents (Agent, Agent Update): the API's hosted names and `local_extractive`, the
 * offline answerer. Which of them a server runs is `ragdesk.agents.models()`.
 */
export const specModelNameSchema = z.enum(['gpt_3_5_turbo', 'gpt_3_5_turbo_16k', 'gpt_4', 'gpt_4_32k', 'local_extractive']);
/** Agent Query narrows `modelName` to three hosted names (as the API does), plus the offline answerer. */
export const queryModelNameSchema = z.enum(['gpt_3_5_turbo', 'gpt_3_5_turbo_16k', 'gpt_4', 'local_extractive']);
export const promptTypeSchema = z.enum(['raw', 'customer_support']);
export const visibilitySchema = z.enum(['public', 'private']);

const temperature = z.number().min(0).max(1);
const promptText = z.string().max(100_000);
const name = nonBlankString.pipe(z.string().max(200));
const description = z.string().max(10_000);
const datastoreIds = z.array(idSchema).max(100);

/** Agent Create: `description` is required, as it is on update. */
export const agentCreateSchema = z.strictObject({
  name,
  description,
  /** Default: the chat adapter's default model (`ragdesk.agents.models().default`). */
  modelName: specModelNameSchema.optional(),
  temperature: temperature.default(0),
  visibility: visibilitySchema.default('private'),
  systemPrompt: promptText.nullable().optional(),
  userPrompt: promptText.nullable().optional(),
  promptType: promptTypeSchema.nullable().optional(),
  promptTemplate: promptText.nullable().optional(),
  /** Query settings visitors (callers without the owner's key) may change; default none. */
  allowOverrides: allowOverridesSchema.default([]),
  datastoreIds: datastoreIds.default([]),
  ...agentSettingsFields,
});

/** Agent Update (PATCH): `description` required, every other field optional; absent = unchanged. */
export const agentUpdateSchema = z.strictObject({
  description,
  name: name.optional(),
  modelName: specModelNameSchema.optional(),
  temperature: temperature.optional(),
  systemPrompt: promptText.nullable().optional(),
  userPrompt: promptText.nullable().optional(),
  promptType: promptTypeSchema.nullable().optional(),
  promptTemplate: promptText.nullable().optional(),
  visibility: visibilitySchema.optional(),
  allowOverrides: allowOverridesSchema.optional(),
  datastoreIds: datastoreIds.optional(),
  ...agentSettingsFields,
});

/** Agent Query body. `streaming` is accepted here; the HTTP adapter uses it to pick SSE. */
export const agentQuerySchema = z.strictObject({
  query: nonBlankString.pipe(z.string().max(20_000)),
  conversationId: optionalId,
  visitorId: optionalId,
  temperature: temperature.optional(),
  streaming: z.boolean().optional(),
  modelName: queryModelNameSchema.optional(),
  maxTokens: z.int().min(1).max(1_000_000).optional(),
  presencePenalty: z.number().min(-2).max(2).optional(),
  frequencyPenalty: z.number().min(-2).max(2).optional(),
  topP: z.number().min(0).max(1).optional(),
  filters: agentFiltersSchema.optional(),
  /** Rerank the best `topN` passages before the answer (overrides the agent's `rerankTopN`). */
  rerank: rerankSchema.optional(),
  systemPrompt: promptText.optional(),
  userPrompt: promptText.optional(),
  promptType: promptTypeSchema.optional(),
  promptTemplate: promptText.optional(),
  ...clientQueryFields,
});

export type AgentCreateInput = z.input<typeof agentCreateSchema>;
export type AgentUpdateInput = z.input<typeof agentUpdateSchema>;
export type AgentQueryInput = z.input<typeof agentQuerySchema>;
export type AgentQuery = z.output<typeof agentQuerySchema>;
