import { z } from 'zod';
import { MAX_RERANK_CANDIDATES } from '../datastores/rerank.js';
import type { AgentRecord, AgentSettings } from '../ports/agent-key-usage-records.js';

/**
 * The reference service's agent fields, accepted on agent create and update. `handle` is stored on
 * the record (unique, `@handle` in paths); the others in `settings`.
 */
const handleSchema = z
  .string()
  .min(3)
  .max(50)
  .regex(/^[a-z0-9][a-z0-9_-]*$/, { message: 'lower-case letters, digits, _ and - only, starting with a letter or digit' });

export const agentSettingsFields = {
  handle: handleSchema.nullable().optional(),
  includeSources: z.boolean().optional(),
  restrictKnowledge: z.boolean().optional(),
  useMarkdown: z.boolean().optional(),
  useLanguageDetection: z.boolean().optional(),
  iconUrl: z.string().max(2_000).nullable().optional(),
  interfaceConfig: z.record(z.string().max(200), z.unknown()).nullable().optional(),
  prompt: z.string().max(100_000).nullable().optional(),
  /** Rerank this many first-stage passages on every query (null or absent: no reranking). */
  rerankTopN: z.int().min(1).max(MAX_RERANK_CANDIDATES).nullable().optional(),
};

const SETTING_KEYS = [
  'includeSources',
  'restrictKnowledge',
  'useMarkdown',
  'useLanguageDetection',
  'iconUrl',
  'interfaceConfig',
  'prompt',
  'rerankTopN',
] as const;

/** Splits parsed input into the record's own fields and the settings given (absent ones left out). */
export function splitSettings<T extends Record<string, unknown>>(
  input: T,
): { rest: Omit<T, (typeof SETTING_KEYS)[number]>; settings: AgentSettings } {
  const rest: Record<string, unknown> = {};
  const settings: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if ((SETTING_KEYS as readonly string[]).includes(key)) {
      if (value !== undefined) settings[key] = value;
    } else {
      rest[key] = value;
    }
  }
  return { rest: rest as Omit<T, (typeof SETTING_KEYS)[number]>, settings: settings };
}

const RESTRICT_KNOWLEDGE =
  'Answer only from the context given with the question. If it does not contain the answer, say that you do not know; do not use any other knowledge.';
const USE_MARKDOWN = 'Format the answer in Markdown.';

/** The system prompt with the instructions the agent's settings add (as the reference does). */
export function withSettingsInstructions(system: string | null, agent: AgentRecord): string | null {
  const extra = [
    ...(agent.settings.restrictKnowledge === true ? [RESTRICT_KNOWLEDGE] : []),
    ...(agent.settings.useMarkdown === true ? [USE_MARKDOWN] : []),
  ];
  if (extra.length === 0) return system;
  return [system, ...extra].filter((part): part is string => part !== null && part !== '').join('\n');
}

/** `includeSources: false` answers without sources. */
export function includesSources(agent: AgentRecord): boolean {
  return agent.settings.includeSources !== false;
}
