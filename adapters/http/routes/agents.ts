import { RagdeskError, allowsDatastores, parseInput, schemas, type AgentQueryInput } from '../../../src/index.js';
import { agentByIdOrHandle, ownedAgent, missing } from '../access.js';
import { requireDatastoreAccess, requirePrincipal, requireScope, type Principal } from '../auth.js';
import { readJsonObject } from '../body.js';
import { json, param, type OperationContext, type Route } from '../operation.js';
import { agentStream } from '../agent-stream.js';
import { takeVisitorTurn } from '../visitor-limits.js';
import { agentCreateBodySchema, agentToWire, agentUpdateBodySchema, toolsToDatastoreIds } from '../wire.js';

function principalOf(context: OperationContext): Principal {
  return requirePrincipal(context.principal);
}

export const agentRoutes: Route[] = [
  {
    method: 'POST',
    path: '/agents',
    operationId: 'createAgent',
    summary: 'Agent Create. The datastores the agent reads are named as `tools`.',
    tag: 'agents',
    auth: { scope: 'write' },
    body: { json: agentCreateBodySchema, name: 'AgentCreateRequest' },
    response: 'Agent',
    errors: [400, 404, 413, 415],
    async run(context) {
      const principal = principalOf(context);
      const body = parseInput(agentCreateBodySchema, await readJsonObject(context.request, context.options.maxJsonBytes), 'agent');
      const { tools, ...rest } = body;
      const datastoreIds = toolsToDatastoreIds(tools);
      for (const id of datastoreIds) requireDatastoreAccess(principal, id);
      const agent = await context.ragdesk.agents.create({ ...rest, datastoreIds }, { ownerId: principal.ownerId });
      return json(agentToWire(agent));
    },
  },
  {
    method: 'GET',
    path: '/agents',
    operationId: 'listAgents',
    summary: "The key owner's agents, oldest first.",
    tag: 'agents',
    auth: { scope: 'read' },
    response: 'Agent[]',
    errors: [],
    async run(context) {
      const principal = principalOf(context);
      const agents = await context.ragdesk.agents.list({ ownerId: principal.ownerId });
      return json(agents.filter((agent) => allowsDatastores(principal, agent.datastoreIds)).map(agentToWire));
    },
  },
  {
    method: 'GET',
    path: '/agents/{id}',
    operationId: 'getAgent',
    summary: 'Agent Get. `{id}` may be `@handle`.',
    tag: 'agents',
    auth: { scope: 'read' },
    response: 'Agent',
    errors: [404],
    async run(context) {
      return json(agentToWire(await ownedAgent(context.ragdesk, principalOf(context), param(context, 'id'))));
    },
  },
  {
    method: 'PATCH',
    path: '/agents/{id}',
    operationId: 'updateAgent',
    summary: 'Agent Update: `description` is required, absent fields stay unchanged.',
    tag: 'agents',
    auth: { scope: 'write' },
    body: { json: agentUpdateBodySchema, name: 'AgentUpdateRequest' },
    response: 'Agent',
    errors: [400, 404, 413, 415],
    async run(context) {
      const principal = principalOf(context);
      const { id } = await ownedAgent(context.ragdesk, principal, param(context, 'id'));
      const body = parseInput(agentUpdateBodySchema, await readJsonObject(context.request, context.options.maxJsonBytes), 'agent update');
      const { tools, ...rest } = body;
      const datastoreIds = tools === undefined ? undefined : toolsToDatastoreIds(tools);
      for (const datastoreId of datastoreIds ?? []) requireDatastoreAccess(principal, datastoreId);
      const agent = await context.ragdesk.agents.update(id, { ...rest, ...(datastoreIds === undefined ? {} : { datastoreIds }) });
      return json(agentToWire(agent));
    },
  },
  {
    method: 'DELETE',
    path: '/agents/{id}',
    operationId: 'deleteAgent',
    summary: 'Agent Delete: deletes the agent and its conversations; answers the agent as it was.',
    tag: 'agents',
    auth: { scope: 'write' },
    response: 'Agent',
    errors: [404],
    async run(context) {
      const principal = principalOf(context);
      const { id } = await ownedAgent(context.ragdesk, principal, param(context, 'id'));
      await readJsonObject(context.request, context.options.maxJsonBytes);
      return json(agentToWire(await context.ragdesk.agents.delete(id)));
    },
  },
  {
    method: 'POST',
    path: '/agents/{id}/query',
    operationId: 'queryAgent',
    summary:
      'Agent Query. Public agents answer without a key; callers other than the owner may not set the model, prompt or ' +
      "sampling fields the agent's `allowOverrides` does not list (403), and continue a conversation only with its `visitorId`. " +
      'With `streaming: true` the answer is a text/event-stream: ' +
      '`answer` events (URI-encoded deltas), one `endpoint_response` (URI-encoded JSON of the full response), then `data: [DONE]`; ' +
      'a failure after the stream opened is `data: [ERROR]<code>`. A usage limit is a 402 before the stream opens.',
    tag: 'agents',
    auth: 'public-agent',
    body: { json: schemas.agentQuerySchema, name: 'AgentQueryRequest' },
    response: 'AgentQueryResponse',
    streams: true,
    errors: [400, 402, 403, 404, 413, 415],
    async run(context) {
      const id = param(context, 'id');
      const agent = await queryableAgent(context, id);
      // Passed on as it came: the library validates it with the schema the OpenAPI document shows.
      const body = (await readJsonObject(context.request, context.options.maxJsonBytes)) as AgentQueryInput;
      // Anyone but the owner is a visitor: no per-query settings beyond the agent's allowOverrides,
      // and rate limits per address and visitor id (their queries count against the owner's limit).
      const caller = context.principal !== null && context.principal.ownerId === agent.ownerId ? 'owner' : 'visitor';
      const limits = context.options.visitorLimits;
      const visitor = { address: context.request.remoteAddress, visitorId: (body as { visitorId?: unknown }).visitorId };
      if (caller === 'visitor') await takeVisitorTurn(limits.queries, visitor, 'queries');
      const options = {
        signal: context.request.signal,
        caller,
        ...(context.principal ? { ownerId: context.principal.ownerId } : {}),
        ...(caller === 'visitor' ? { admitConversation: () => takeVisitorTurn(limits.conversations, visitor, 'new conversations') } : {}),
      } as const;
      if (body.streaming === true) {
        const events = await context.ragdesk.agents.openStream(agent.id, body, options);
        return agentStream(events, context.request.signal, context.reportBug);
      }
      return json(await context.ragdesk.agents.query(agent.id, body, options));
    },
  },
];

/**
 * Who may query: the owner's key (with the `query` scope), or anyone at all when the agent is
 * public. Without a key a private or unknown agent is a 401 (asking for a key reveals nothing);
 * with another owner's key it is a 404.
 */
async function queryableAgent(context: OperationContext, id: string) {
  const { principal, ragdesk } = context;
  const agent = await agentByIdOrHandle(ragdesk, id).catch((error: unknown) => {
    if (RagdeskError.isInstance(error) && error.code === 'not_found') return null;
    throw error;
  });
  if (principal === null) {
    if (agent?.visibility === 'public') return agent;
    throw new RagdeskError(
      'unauthorized',
      'Missing API key: send "Authorization: Bearer <API key>" (only public agents answer without one)',
    );
  }
  if (agent && agent.ownerId === principal.ownerId) {
    requireScope(principal, 'query');
    return ownedAgent(ragdesk, principal, id);
  }
  if (agent?.visibility === 'public') return agent;
  throw missing('agent', id);
}
