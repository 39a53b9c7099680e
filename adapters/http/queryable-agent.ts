import { RagdeskError, type Agent } from '../../src/index.js';
import { agentByIdOrHandle, missing, ownedAgent } from './access.js';
import { requireScope } from './auth.js';
import type { OperationContext } from './operation.js';

/** Whether an agent answers visitors (no key, or another owner's key) on a route. */
export type VisitorRule = (agent: Agent) => boolean;

/** The agent query routes: a public agent answers visitors. */
const publicAgents: VisitorRule = (agent) => agent.visibility === 'public';

export interface QueryableAgent {
  agent: Agent;
  /** Anyone but the owner is a visitor: no per-query settings beyond the agent's allowOverrides. */
  caller: 'owner' | 'visitor';
}

/**
 * Who may query: the owner's key (with the `query` scope), or anyone at all when `visitors` lets
 * the agent answer them. Without a key an agent that does not is a 401, like an unknown one (asking
 * for a key reveals nothing); with another owner's key it is a 404, like an unknown one.
 */
export async function queryableAgent(context: OperationContext, id: string, visitors: VisitorRule = publicAgents): Promise<QueryableAgent> {
  const { principal, ragdesk } = context;
  const agent = await agentByIdOrHandle(ragdesk, id).catch((error: unknown) => {
    if (RagdeskError.isInstance(error) && error.code === 'not_found') return null;
    throw error;
  });
  if (principal === null) {
    if (agent && visitors(agent)) return { agent, caller: 'visitor' };
    throw new RagdeskError(
      'unauthorized',
      'Missing API key: send "Authorization: Bearer <API key>" (only public agents answer without one)',
    );
  }
  if (agent && agent.ownerId === principal.ownerId) {
    requireScope(principal, 'query');
    return { agent: await ownedAgent(ragdesk, principal, id), caller: 'owner' };
  }
  if (agent && visitors(agent)) return { agent, caller: 'visitor' };
  throw missing('agent', id);
}

/** The call options of a query by this caller. */
export function queryOptions(context: OperationContext, caller: QueryableAgent['caller']) {
  return {
    signal: context.request.signal,
    caller,
    ...(context.principal ? { ownerId: context.principal.ownerId } : {}),
  } as const;
}
