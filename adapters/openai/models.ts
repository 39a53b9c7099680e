import { RagdeskError } from '../../src/errors.js';
import type { HostedModelName, ModelName } from '../../src/ports/agent-key-usage-records.js';

/** A model id as the upstream server names it, and how many tokens its context window holds. */
export interface ModelEntry {
  id: string;
  contextWindow: number;
}

export type ModelTable = Readonly<Record<HostedModelName, ModelEntry>>;

/**
 * API model names → current OpenAI models. These names are of retired models; each maps to the
 * current non-reasoning model of the same tier (reasoning models refuse `temperature`, `top_p` and
 * the penalties that agent queries carry). gpt-4.1-mini costs about what gpt-3.5-turbo did and beats
 * it; gpt-4.1 replaces gpt-4 at a fraction of its price. Both have a 1,047,576-token window; the
 * agent core still caps context and memory by its own budget, so a big window does not mean big
 * prompts. Override per name with `openaiChat({ models })`, e.g. for Ollama or vLLM model ids.
 */
export const DEFAULT_MODEL_TABLE: ModelTable = {
  gpt_3_5_turbo: { id: 'gpt-4.1-mini', contextWindow: 1_047_576 },
  gpt_3_5_turbo_16k: { id: 'gpt-4.1-mini', contextWindow: 1_047_576 },
  gpt_4: { id: 'gpt-4.1', contextWindow: 1_047_576 },
  gpt_4_32k: { id: 'gpt-4.1', contextWindow: 1_047_576 },
};

/**
 * @deprecated Renamed `DEFAULT_MODEL_TABLE`; this alias goes in the next minor version.
 * @alias
 */
export const SPEC_MODEL_TABLE: ModelTable = DEFAULT_MODEL_TABLE;

/** The hosted API names, in the table's order. */
export const HOSTED_NAMES = Object.keys(DEFAULT_MODEL_TABLE) as HostedModelName[];

export function isModelName(name: string): name is HostedModelName {
  return Object.hasOwn(DEFAULT_MODEL_TABLE, name);
}

/** The default table with `overrides` applied entry by entry. */
export function modelTable(overrides: Partial<Record<HostedModelName, ModelEntry>> = {}): ModelTable {
  return { ...DEFAULT_MODEL_TABLE, ...overrides };
}

/** `resolveModel(name)` over the default table (the adapter's own honours its overrides). */
export function resolveModel(name: ModelName): ModelEntry {
  return { ...tableEntry(DEFAULT_MODEL_TABLE, name) };
}

/**
 * The entry of a hosted name. `local_extractive` is the offline answerer, not a language model: the
 * core never sends it here (the adapter's `models()` leaves it out), so asking is a caller's bug.
 */
export function tableEntry(table: ModelTable, name: ModelName): ModelEntry {
  if (!isModelName(name)) {
    throw new RagdeskError('model_not_available', `${name} is not a hosted model; an OpenAI-compatible server cannot run it`, {
      details: { issues: [{ path: 'modelName', message: 'not a hosted model' }] },
    });
  }
  return table[name];
}
