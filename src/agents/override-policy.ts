/**
 * What a visitor of a public agent may change per query. A visitor is anyone who does not own the
 * agent (no key, or another owner's key): left alone, one request could switch a public agent to
 * the dearest model or replace its system prompt. Per-query settings from visitors are refused
 * unless the agent lists them in `allowOverrides`, and so is `context` unless the agent's
 * `settings.allowVisitorContext` is true; the owner (and library calls) keep full control.
 */
import { z } from 'zod';
import { RagdeskError } from '../errors.js';
import type { AgentSettings, OverridableField } from '../ports/agent-key-usage-records.js';

/** The query fields that change how the agent answers, rather than what is asked. */
export const OVERRIDABLE_FIELDS = [
  'modelName',
  'systemPrompt',
  'userPrompt',
  'promptType',
  'promptTemplate',
  'temperature',
  'maxTokens',
  'topP',
  'presencePenalty',
  'frequencyPenalty',
] as const satisfies readonly OverridableField[];

export const allowOverridesSchema = z.array(z.enum(OVERRIDABLE_FIELDS)).max(OVERRIDABLE_FIELDS.length);

/**
 * Longest `context` (text a page embedding the chat passes along with the query) a visitor may
 * send where the agent allows visitor context at all. The owner's own calls are bounded by the
 * query schema only.
 */
export const MAX_VISITOR_CONTEXT_CHARS = 4_000;

/** Who is asking: the agent's owner (or the library itself), or a visitor of a public agent. */
export type AgentCaller = 'owner' | 'visitor';

/** What the visitor check reads of an agent. */
export interface VisitorPolicy {
  allowOverrides: readonly OverridableField[];
  settings?: Pick<AgentSettings, 'allowVisitorContext'>;
}

/**
 * Throws `forbidden` (403) naming every setting in `query` (the validated body, so a field the
 * schema reads as absent counts as absent) a visitor may not change on this agent — `context`
 * among them unless the agent's `settings.allowVisitorContext` is true (a blank context counts as
 * absent) — and `invalid_request` when an allowed `context` is longer than
 * {@link MAX_VISITOR_CONTEXT_CHARS}.
 */
export function checkVisitorQuery(agent: VisitorPolicy, query: Record<string, unknown>): void {
  const allowed = new Set<string>(agent.allowOverrides);
  const refused: string[] = OVERRIDABLE_FIELDS.filter((field) => query[field] !== undefined && !allowed.has(field));
  const context = query.context;
  const sendsContext = typeof context === 'string' && context.trim() !== '';
  if (sendsContext && agent.settings?.allowVisitorContext !== true) refused.push('context');
  if (refused.length > 0) {
    const overrides = refused.filter((field) => field !== 'context');
    const reasons = [
      ...(overrides.length > 0 ? [`the agent's allowOverrides does not list ${overrides.join(', ')}`] : []),
      ...(refused.includes('context') ? ["the agent's settings.allowVisitorContext is not true"] : []),
    ];
    throw new RagdeskError('forbidden', `Only the agent's owner may set ${refused.join(', ')} on a query; ${reasons.join(' and ')}`, {
      details: { fields: refused, issues: refused.map((path) => ({ path, message: 'not allowed for visitors of this agent' })) },
    });
  }
  if (typeof context === 'string' && context.length > MAX_VISITOR_CONTEXT_CHARS) {
    throw new RagdeskError('invalid_request', `context is longer than ${MAX_VISITOR_CONTEXT_CHARS} characters`, {
      details: {
        issues: [{ path: 'context', message: `at most ${MAX_VISITOR_CONTEXT_CHARS} characters from visitors` }],
        limit: MAX_VISITOR_CONTEXT_CHARS,
      },
    });
  }
}
