import type { ApiKeyScope } from '../ports/agent-key-usage-records.js';

/** The part of a key that decides what it may do. */
export interface KeyGrant {
  scopes: readonly ApiKeyScope[];
  datastoreIds: readonly string[] | null;
}

/** `admin` implies every other scope. */
export function hasScope(grant: KeyGrant, scope: ApiKeyScope): boolean {
  return grant.scopes.includes('admin') || grant.scopes.includes(scope);
}

/** Whether the key may touch this datastore (keys without a datastore list may touch all of their owner's). */
export function allowsDatastore(grant: KeyGrant, datastoreId: string): boolean {
  return grant.datastoreIds === null || grant.datastoreIds.includes(datastoreId);
}

/** An agent is within a restricted key's reach only when every datastore it reads is. */
export function allowsDatastores(grant: KeyGrant, datastoreIds: readonly string[]): boolean {
  return datastoreIds.every((id) => allowsDatastore(grant, id));
}
