import { z } from 'zod';
import type { HistoryMessage } from './memory.js';

export type { HistoryMessage };

/**
 * Caller-supplied history (`AgentCallOptions.history`). Bounded so that fitting it to the memory
 * budget stays cheap: the budget keeps at most a few thousand tokens whatever is sent.
 */
export const historySchema = z
  .array(z.strictObject({ role: z.enum(['user', 'assistant']), content: z.string().max(100_000) }))
  .max(1_000) satisfies z.ZodType<HistoryMessage[]>;
