import { z } from 'zod';
import { parseInput } from '../validation.js';
import {
  attachmentLimitsSchema,
  resolveAttachmentLimits,
  SYSTEM_CLOCK,
  type AttachmentClock,
  type AttachmentLimits,
} from './attachment-limits.js';
import { DEFAULT_PROMPT_BUDGET, type PromptBudgetOptions } from './budget.js';
import { DEFAULT_PRICES, type ModelPrice } from './pricing.js';
import type { QueryLimit } from './usage-policy.js';

/** `createRagdesk({ agents })`: how agents retrieve, budget prompts, price and limit queries. */
export interface AgentOptions {
  /** Chunks retrieved per query (across the agent's datastores), default 6. */
  retrievalTopK: number;
  budget: PromptBudgetOptions;
  /** USD per 1M tokens by model id; merged over DEFAULT_PRICES. */
  prices: Readonly<Record<string, ModelPrice>>;
  /**
   * Queries per owner per period; none by default. A query counts against the agent's owner,
   * whoever asks (the owner, another owner's key, an anonymous visitor of a public agent).
   */
  queryLimit?: QueryLimit;
  /** What one query's attachments may cost (count, bytes, time, redirects) and visitors' shared budget per agent. */
  attachments: AttachmentLimits;
  /** @internal Time for the attachment limits (tests). */
  attachmentClock: AttachmentClock;
}

export interface AgentOptionsInput {
  retrievalTopK?: number;
  budget?: Partial<PromptBudgetOptions>;
  prices?: Readonly<Record<string, ModelPrice>>;
  queryLimit?: QueryLimit;
  attachments?: Partial<AttachmentLimits>;
  /** @internal Time for the attachment limits, so tests decide when a deadline passes. */
  attachmentClock?: AttachmentClock;
}

const tokens = z.int().min(0).max(10_000_000);
const optionsSchema = z.object({
  retrievalTopK: z.int().min(1).max(100).optional(),
  budget: z.object({ answerReserve: tokens, maxContextTokens: tokens, maxMemoryTokens: tokens }).partial().optional(),
  prices: z.record(z.string(), z.object({ prompt: z.number().min(0), completion: z.number().min(0) })).optional(),
  queryLimit: z.object({ maxQueries: z.int().min(0), period: z.enum(['hour', 'day', 'month']) }).optional(),
  attachments: attachmentLimitsSchema.optional(),
});

export function resolveAgentOptions(input: AgentOptionsInput | undefined): AgentOptions {
  parseInput(optionsSchema, input ?? {}, 'agents options');
  return {
    retrievalTopK: input?.retrievalTopK ?? 6,
    budget: { ...DEFAULT_PROMPT_BUDGET, ...input?.budget },
    prices: { ...DEFAULT_PRICES, ...input?.prices },
    ...(input?.queryLimit ? { queryLimit: input.queryLimit } : {}),
    attachments: resolveAttachmentLimits(input?.attachments),
    attachmentClock: input?.attachmentClock ?? SYSTEM_CLOCK,
  };
}
