import { z } from 'zod';
import { interfaceConfigSchema } from './interface-config.js';
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
  interfaceConfig: interfaceConfigSchema.nullable().optional(),
  prompt: z.string().max(100_000).nullable().optional(),
  /**
   * A public agent answers visitors (no key, or another owner's key) on the OpenAI-compatible
   * routes only when this is true. Off by default: any OpenAI client could otherwise use the agent.
   */
  openaiCompatPublic: z.boolean().optional(),
  /** Whether visitors (anyone but the owner) may send `context` with a query; off unless set. */
  allowVisitorContext: z.boolean().optional(),
  /**
   * Whether a visitor may read a conversation of this public agent by its id alone, without its
   * `visitorId` (the reference chat client's history poll sends none); off unless set.
   */
  allowConversationReadById: z.boolean().optional(),
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
  'openaiCompatPublic',
  'allowVisitorContext',
  'allowConversationReadById',
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

/** Added to the system prompt by `restrictKnowledge` (on by default). */
export const RESTRICT_KNOWLEDGE_INSTRUCTION =
  'Answer only from the context given with the question. If it does not contain the answer, say that you do not know; do not use any other knowledge.';
/** Added to the system prompt by `useMarkdown` (on by default). */
export const USE_MARKDOWN_INSTRUCTION = 'Format the answer in Markdown.';

/**
 * The system prompt with the instructions the agent's settings add (as the reference does).
 * `restrictKnowledge` and `useMarkdown` are on unless the agent turns them off, as in the reference.
 */
export function withSettingsInstructions(system: string | null, agent: AgentRecord): string | null {
  const extra = [
    ...(restrictsKnowledge(agent) ? [RESTRICT_KNOWLEDGE_INSTRUCTION] : []),
    ...(usesMarkdown(agent) ? [USE_MARKDOWN_INSTRUCTION] : []),
  ];
  if (extra.length === 0) return system;
  return [system, ...extra].filter((part): part is string => part !== null && part !== '').join('\n');
}

/** `restrictKnowledge` (default true, as in the reference): answer only from the retrieved passages. */
export function restrictsKnowledge(agent: AgentRecord): boolean {
  return agent.settings.restrictKnowledge !== false;
}

/** `useMarkdown` (default true, as in the reference): answers are asked for in Markdown. */
export function usesMarkdown(agent: AgentRecord): boolean {
  return agent.settings.useMarkdown !== false;
}

/** `includeSources: false` answers without sources. */
export function includesSources(agent: AgentRecord): boolean {
  return agent.settings.includeSources !== false;
}
