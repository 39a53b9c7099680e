/**
 * What a visitor of a public agent may change per query. A visitor is anyone who does not own the
 * agent (no key, or another owner's key): left alone, one request could switch a public agent to
 * the dearest model or replace its system prompt. Per-query settings from visitors are refused
 * unless the agent lists them in `allowOverrides`; the owner (and library calls) keep full control.
 */
import { z } from 'zod';
import { RagdeskError } from '../errors.js';
import type { AgentRecord, OverridableField } from '../ports/agent-key-usage-records.js';

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
 * send. The owner's own calls are bounded by the body limit only.
 */
export const MAX_VISITOR_CONTEXT_CHARS = 4_000;

/** Who is asking: the agent's owner (or the library itself), or a visitor of a public agent. */
export type AgentCaller = 'owner' | 'visitor';

/**
 * Throws `forbidden` (403) naming every setting in `query` (the validated body, so a field the
 * schema reads as absent counts as absent) a visitor may not change on this agent, and
 * `invalid_request` when a visitor's `context` is longer than {@link MAX_VISITOR_CONTEXT_CHARS}.
 */
export function checkVisitorQuery(agent: Pick<AgentRecord, 'allowOverrides'>, query: Record<string, unknown>): void {
  const allowed = new Set<string>(agent.allowOverrides);
  const refused = OVERRIDABLE_FIELDS.filter((field) => query[field] !== undefined && !allowed.has(field));
  if (refused.length > 0) {
    throw new RagdeskError(
      'forbidden',
      `Only the agent's owner may set ${refused.join(', ')} on a query; the agent's allowOverrides does not list ${refused.length === 1 ? 'it' : 'them'}`,
      { details: { fields: refused, issues: refused.map((path) => ({ path, message: 'not allowed for visitors of this agent' })) } },
    );
  }
  const context = query.context;
  if (typeof context === 'string' && context.length > MAX_VISITOR_CONTEXT_CHARS) {
    throw new RagdeskError('invalid_request', `context is longer than ${MAX_VISITOR_CONTEXT_CHARS} characters`, {
      details: {
        issues: [{ path: 'context', message: `at most ${MAX_VISITOR_CONTEXT_CHARS} characters from visitors` }],
        limit: MAX_VISITOR_CONTEXT_CHARS,
      },
    });
  }
}
