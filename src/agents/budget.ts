import type { Tokenizer } from '../ingest/tokenizer.js';

/** How an agent divides the model's window. All in tokens. */
export interface PromptBudgetOptions {
  /** Kept free for the answer when the query sets no `maxTokens` (default 1024). */
  answerReserve: number;
  /** Upper bound on retrieved context (default 6000): more rarely helps and costs on every query. */
  maxContextTokens: number;
  /** Upper bound on conversation memory (default 2000). */
  maxMemoryTokens: number;
}

export const DEFAULT_PROMPT_BUDGET: PromptBudgetOptions = {
  answerReserve: 1024,
  maxContextTokens: 6000,
  maxMemoryTokens: 2000,
};

/** Per-message framing tokens of chat formats (role markers); counted so budgets are not optimistic. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

export interface BudgetSplit {
  context: number;
  memory: number;
}

/**
 * Splits what the window leaves after the fixed parts. Context comes first (it is what the answer
 * is made of); memory gets what is left, up to its own cap.
 */
export function splitBudget(window: number, fixedTokens: number, answerTokens: number, options: PromptBudgetOptions): BudgetSplit {
  const free = Math.max(0, window - fixedTokens - answerTokens);
  const context = Math.min(options.maxContextTokens, Math.floor(free * 0.7));
  const memory = Math.min(options.maxMemoryTokens, free - context);
  return { context, memory: Math.max(0, memory) };
}

/** Longest prefix of `items` whose token counts fit `budget`; the first item is cut to fit if alone too long. */
export function takeWithinBudget<T>(items: readonly T[], budget: number, tokens: (item: T) => number): T[] {
  const taken: T[] = [];
  let used = 0;
  for (const item of items) {
    const cost = tokens(item);
    if (used + cost > budget) break;
    taken.push(item);
    used += cost;
  }
  return taken;
}

/** Cuts text to at most `maxTokens` tokens (whole tokens, decoded back). */
export function truncateToTokens(tokenizer: Tokenizer, text: string, maxTokens: number): string {
  if (maxTokens <= 0) return '';
  const ids = tokenizer.encode(text);
  return ids.length <= maxTokens ? text : tokenizer.decode(ids.slice(0, maxTokens));
}
