import type { PromptType } from '../ports/agent-key-usage-records.js';

/**
 * The prompts an agent uses when it sets none, and the two deprecated presets of the API. `{query}` and
 * `{context}` are replaced at query time.
 */
export const DEFAULT_SYSTEM_PROMPT =
  'You are a helpful assistant that answers questions using only the context provided. ' +
  'Cite the passages you use with their numbers, like [1]. ' +
  'If the context does not contain the answer, say plainly that you do not know; never make one up.';

export const DEFAULT_USER_PROMPT = 'Context:\n{context}\n\nQuestion: {query}\n\nAnswer:';

export interface PromptPreset {
  /** Null: no system message. */
  system: string | null;
  user: string;
}

export const PROMPT_PRESETS: Record<PromptType, PromptPreset> = {
  customer_support: {
    system:
      'You are a customer support agent. Answer the customer politely and concisely, using only the ' +
      'context provided; cite passages like [1]. If the answer is not in the context, say you do not ' +
      'know and offer to help with something else. Never invent product details, prices or policies.',
    user: DEFAULT_USER_PROMPT,
  },
  // `raw` sends the template as written, with no system message: the template is the whole prompt.
  raw: { system: null, user: '{context}\n\n{query}' },
};
