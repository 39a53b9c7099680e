import { allowsDatastores, hasScope, parseInput, publicAgentView, schemas, type Agent, type AgentQueryInput } from '../../../src/index.js';
import { ownedAgent } from '../access.js';
import { missingKeyError, requireDatastoreAccess, requirePrincipal, requireScope, type Principal } from '../auth.js';
import { admittedQueryOptions, findQueriedAgent, queryableAgent } from '../queryable-agent.js';
import { readJsonObject } from '../body.js';
import { json, param, type OperationContext, type Route } from '../operation.js';
import { agentStream } from '../agent-stream.js';
import { withoutReadOnlyFields } from '../agent-update-body.js';
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
    summary:
      "Agent Get. `{id}` may be `@handle`: the key owner's agent with that handle (handles are unique within an owner), else the public " +
      "agent with it. The owner's key with the `read` scope gets the whole agent; anyone else gets the public view " +
      'of a public agent (what a chat widget shows: no prompts, model settings or owner). Without a key a private or unknown agent is a 401, ' +
      "with another owner's key a 404.",
    tag: 'agents',
    auth: 'public-agent',
    response: 'AgentOrPublicAgent',
    errors: [403, 404],
    originAgents: pathAgent,
    async run(context) {
      return json(await readableAgent(context, param(context, 'id')));
    },
  },
  {
    method: 'PATCH',
    path: '/agents/{id}',
    operationId: 'updateAgent',
    summary:
      'Agent Update: `description` is required, absent fields stay unchanged. The body of Agent Get is accepted as it is: its read-only ' +
      'fields (`id`, `ownerId`, `settings`, `datastoreIds`, timestamps) are ignored and named in `warnings`.',
    tag: 'agents',
    auth: { scope: 'write' },
    body: { json: agentUpdateBodySchema, name: 'AgentUpdateRequest' },
    response: 'AgentUpdateResponse',
    errors: [400, 404, 413, 415],
    async run(context) {
      const principal = principalOf(context);
      const { id } = await ownedAgent(context.ragdesk, principal, param(context, 'id'));
      const raw = withoutReadOnlyFields(id, await readJsonObject(context.request, context.options.maxJsonBytes));
      const body = parseInput(agentUpdateBodySchema, raw.body, 'agent update');
      const { tools, ...rest } = body;
      const datastoreIds = tools === undefined ? undefined : toolsToDatastoreIds(tools);
      for (const datastoreId of datastoreIds ?? []) requireDatastoreAccess(principal, datastoreId);
      const agent = await context.ragdesk.agents.update(id, { ...rest, ...(datastoreIds === undefined ? {} : { datastoreIds }) });
      return json({ ...agentToWire(agent), warnings: raw.warnings });
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
      "sampling fields the agent's `allowOverrides` does not list, nor `context` unless its `allowVisitorContext` setting is true (403), " +
      'and continue a conversation only with its `visitorId`. `context` reaches the model fenced in the user message, never as system text. ' +
      'With `streaming: true` the answer is a text/event-stream: ' +
      '`answer` events (URI-encoded deltas), one `endpoint_response` (URI-encoded JSON of the full response), then `data: [DONE]`; ' +
      'a failure after the stream opened is `data: [ERROR]<code>`. A usage limit is a 402 before the stream opens.',
    tag: 'agents',
    auth: 'public-agent',
    body: { json: schemas.agentQuerySchema, name: 'AgentQueryRequest' },
    response: 'AgentQueryResponse',
    streams: true,
    errors: [400, 402, 403, 404, 413, 415],
    originAgents: pathAgent,
    async run(context) {
      const { agent, caller } = await queryableAgent(context, param(context, 'id'));
      // Passed on as it came: the library validates it with the schema the OpenAPI document shows.
      const body = (await readJsonObject(context.request, context.options.maxJsonBytes)) as AgentQueryInput;
      const options = await admittedQueryOptions(context, caller, (body as { visitorId?: unknown }).visitorId);
      if (body.streaming === true) {
        const events = await context.ragdesk.agents.openStream(agent.id, body, options);
        return agentStream(events, context.request.signal, context.reportBug);
      }
      return json(await context.ragdesk.agents.query(agent.id, body, options));
    },
  },
];

/** The agent the path names (`{id}` or `@handle`), for the check of a browser's origin. */
export async function pathAgent(context: OperationContext): Promise<Agent[]> {
  const agent = await findQueriedAgent(context, param(context, 'id'));
  return agent === null ? [] : [agent];
}

/**
 * Agent Get: the whole agent for its owner's key with the `read` scope; the public view of a public
 * agent for anyone else. Everything else answers as if there were no public views (401 without a
 * key, 404 for another owner's key, 403 for the owner's key without `read`), so the answer tells
 * nothing about private agents.
 */
async function readableAgent(context: OperationContext, id: string) {
  const { principal, ragdesk } = context;
  const agent = await findQueriedAgent(context, id);
  const owner = principal !== null && agent !== null && agent.ownerId === principal.ownerId;
  if (owner && hasScope(principal, 'read')) return agentToWire(await ownedAgent(ragdesk, principal, id));
  if (agent?.visibility === 'public') return publicAgentView({ ...agent, visibility: 'public' });
  if (principal === null) throw missingKeyError();
  requireScope(principal, 'read');
  return agentToWire(await ownedAgent(ragdesk, principal, id));
}
