import type { ModelName } from '../ports/agent-key-usage-records.js';

/**
 * Context windows of the API model names as OpenAI documented them, used when the chat adapter does
 * not say (`ChatModel.resolveModel`). They only bound prompt budgets; a larger real window is fine.
 */
export const MODEL_CONTEXT_WINDOWS: Record<ModelName, number> = {
  gpt_3_5_turbo: 16_385,
  gpt_3_5_turbo_16k: 16_385,
  gpt_4: 8_192,
  gpt_4_32k: 32_768,
  // The offline answerer has no window; this keeps its prompt budget what gpt_3_5_turbo gave it.
  local_extractive: 16_385,
};

/**
 * @deprecated Renamed `MODEL_CONTEXT_WINDOWS`; this alias goes in the next minor version.
 * @alias
 */
export const SPEC_MODEL_WINDOWS = MODEL_CONTEXT_WINDOWS;
