import { RagdeskError, allowsDatastores, type Agent, type Datastore, type DatasourceRecord, type Ragdesk } from '../../src/index.js';
import { requireDatastoreAccess, type Principal } from './auth.js';

/**
 * Ownership checks. Another owner's resource answers exactly like a missing one (404 with the same
 * message), so ids cannot be probed across owners.
 */
export function missing(kind: string, id: string): RagdeskError {
  return new RagdeskError('not_found', `${kind} ${JSON.stringify(id)} does not exist`, { details: { kind, id } });
}

export async function ownedDatastore(ragdesk: Ragdesk, principal: Principal, id: string): Promise<Datastore> {
  const datastore = await ragdesk.datastores.get(id);
  if (datastore.ownerId !== principal.ownerId) throw missing('datastore', id);
  requireDatastoreAccess(principal, id);
  return datastore;
}

export async function ownedAgent(ragdesk: Ragdesk, principal: Principal, id: string): Promise<Agent> {
  const agent = await (id.startsWith('@')
    ? ragdesk.agents.getByHandle(id.slice(1), { ownerId: principal.ownerId })
    : ragdesk.agents.get(id));
  if (agent.ownerId !== principal.ownerId) throw missing('agent', id);
  requireAgentAccess(principal, agent);
  return agent;
}

/**
 * The agent a query path names. An id is global. `@name` is a handle, and handles are unique within
 * an owner only: with a key it names the key owner's agent with that handle, else the public agent
 * with it; without a key, the public agent (two public agents never share a handle). Another
 * owner's private agent is never reached through its handle.
 */
export async function queriedAgent(ragdesk: Ragdesk, principal: Principal | null, id: string): Promise<Agent> {
  if (!id.startsWith('@')) return ragdesk.agents.get(id);
  const handle = id.slice(1);
  if (principal !== null) {
    const own = await ragdesk.agents.getByHandle(handle, { ownerId: principal.ownerId }).catch(notFoundAsNull);
    if (own) return own;
  }
  return ragdesk.agents.getPublicByHandle(handle);
}

function notFoundAsNull(error: unknown): null {
  if (RagdeskError.isInstance(error) && error.code === 'not_found') return null;
  throw error;
}

/**
 * The key owner's datasource with this id. Document ids are unique within an owner, so the id is
 * read as the key owner's: another owner's datasource, under any id, answers like a missing one.
 */
export async function ownedDatasource(ragdesk: Ragdesk, principal: Principal, id: string): Promise<DatasourceRecord> {
  const datasource = await ragdesk.datasources.get(id, { ownerId: principal.ownerId }).catch((error: unknown) => {
    throw RagdeskError.isInstance(error) && error.code === 'not_found' ? missing('datasource', id) : error;
  });
  requireDatastoreAccess(principal, datasource.datastoreId);
  return datasource;
}

/** A key limited to some datastores reaches an agent only when the agent reads nothing else. */
function requireAgentAccess(principal: Principal, agent: Agent): void {
  if (!allowsDatastores(principal, agent.datastoreIds)) {
    throw new RagdeskError('forbidden', 'This API key is limited to datastores this agent does not only read', {
      details: { agentId: agent.id },
    });
  }
}
