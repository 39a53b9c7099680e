/** USD per million tokens. */
export interface ModelPrice {
  prompt: number;
  completion: number;
}

/**
 * List prices of common OpenAI models (USD per 1M tokens, as published when this table was written).
 * Override or extend with `createRagdesk({ agents: { prices } })`; keys are model ids as the chat
 * adapter reports them (`resolveModel(...).id`).
 */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gpt-4o-mini': { prompt: 0.15, completion: 0.6 },
  'gpt-4o': { prompt: 2.5, completion: 10 },
  'gpt-4.1-mini': { prompt: 0.4, completion: 1.6 },
  'gpt-4.1': { prompt: 2, completion: 8 },
  'gpt-4-turbo': { prompt: 10, completion: 30 },
  'gpt-3.5-turbo': { prompt: 0.5, completion: 1.5 },
};

/** Cost of one call, or null when the model has no price (the caller reports that instead of guessing). */
export function costOf(
  prices: Readonly<Record<string, ModelPrice>>,
  modelId: string,
  promptTokens: number,
  completionTokens: number,
): number | null {
  const price = prices[modelId];
  if (!price) return null;
  return (promptTokens * price.prompt + completionTokens * price.completion) / 1_000_000;
}
