import { RagdeskError, type Agent, type Datastore, type Ragdesk } from '../../src/index.js';

/** The owner CLI commands act for unless `--owner` says otherwise; `serve` uses the same one. */
export const DEFAULT_OWNER = 'local';

/** A datastore by id, else by name (among the owner's when `ownerId` is given). */
export async function findDatastore(ragdesk: Ragdesk, idOrName: string, ownerId?: string): Promise<Datastore | null> {
  const all = await ragdesk.datastores.list(ownerId === undefined ? {} : { ownerId });
  const byId = all.find((datastore) => datastore.id === idOrName);
  if (byId) return byId;
  const named = all.filter((datastore) => datastore.name === idOrName);
  if (named.length > 1) {
    throw new RagdeskError(
      'conflict',
      `Several datastores are named ${JSON.stringify(idOrName)}: use an id (${named.map((d) => d.id).join(', ')})`,
    );
  }
  return named[0] ?? null;
}

export async function requireDatastore(ragdesk: Ragdesk, idOrName: string, ownerId?: string): Promise<Datastore> {
  const found = await findDatastore(ragdesk, idOrName, ownerId);
  if (!found) throw new RagdeskError('not_found', `No datastore with id or name ${JSON.stringify(idOrName)}`);
  return found;
}

export async function findAgent(ragdesk: Ragdesk, idOrName: string, ownerId?: string): Promise<Agent | null> {
  const all = await ragdesk.agents.list(ownerId === undefined ? {} : { ownerId });
  return all.find((agent) => agent.id === idOrName) ?? all.find((agent) => agent.name === idOrName) ?? null;
}
