import { RagdeskError, type Agent } from '../../src/index.js';
import { missing, ownedAgent, queriedAgent } from './access.js';
import { requireScope } from './auth.js';
import type { OperationContext } from './operation.js';
import { takeVisitorTurn } from './visitor-limits.js';

/** Whether an agent answers visitors (no key, or another owner's key) on a route. */
export type VisitorRule = (agent: Agent) => boolean;

/** The agent query routes: a public agent answers visitors. */
const publicAgents: VisitorRule = (agent) => agent.visibility === 'public';

export interface QueryableAgent {
  agent: Agent;
  /** Anyone but the owner is a visitor: no per-query settings beyond the agent's allowOverrides. */
  caller: 'owner' | 'visitor';
}

/** The agent with this id or `@handle` (as a query names it), or null when there is none. */
export function findQueriedAgent(context: OperationContext, id: string) {
  return queriedAgent(context.ragdesk, context.principal, id).catch((error: unknown) => {
    if (RagdeskError.isInstance(error) && error.code === 'not_found') return null;
    throw error;
  });
}

/**
 * Who may query: the owner's key (with the `query` scope), or anyone at all when `visitors` lets
 * the agent answer them. Without a key an agent that does not is a 401, like an unknown one (asking
 * for a key reveals nothing); with another owner's key it is a 404, like an unknown one.
 */
export async function queryableAgent(context: OperationContext, id: string, visitors: VisitorRule = publicAgents): Promise<QueryableAgent> {
  const { principal, ragdesk } = context;
  const agent = await findQueriedAgent(context, id);
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

/**
 * The call options of a query by this caller, once the visitor limits let it in: a visitor (anyone
 * but the owner) takes a turn of the per-address and per-visitor query limit here (429 past it), and
 * the query asks for one of the new-conversation limit before it starts a conversation. Their
 * queries count against the owner's limit, so without these one address could spend it.
 */
export async function admittedQueryOptions(context: OperationContext, caller: QueryableAgent['caller'], visitorId: unknown) {
  const limits = context.options.visitorLimits;
  const visitor = { address: context.request.remoteAddress, visitorId };
  if (caller === 'visitor') await takeVisitorTurn(limits.queries, visitor, 'queries');
  return {
    signal: context.request.signal,
    caller,
    ...(context.principal ? { ownerId: context.principal.ownerId } : {}),
    ...(caller === 'visitor' ? { admitConversation: () => takeVisitorTurn(limits.conversations, visitor, 'new conversations') } : {}),
  } as const;
}
