import { RagdeskError } from '../errors.js';
import type { ApiKeyScope } from '../ports/agent-key-usage-records.js';
import type { KeyGrant } from './scopes.js';

/** What the key creating another holds: the new key may hold no more. */
export interface GrantLimit extends KeyGrant {
  /** null: the creating key does not expire. */
  expiresAt: string | null;
}

/** The grant a new key asks for, as `keys.create` has parsed it. */
interface RequestedGrant {
  scopes: readonly ApiKeyScope[];
  datastoreIds: readonly string[] | null;
  expiresAt: string | null;
}

/**
 * Throws `forbidden` when the requested key would hold more than `limit`: a scope the limit lacks
 * (`admin` holds every scope), a datastore outside its list, or a later (or no) expiry. The
 * details name every excess, so a console can say what to drop.
 */
export function assertWithinGrant(limit: GrantLimit, requested: RequestedGrant): void {
  const excess: Record<string, unknown> = {};
  if (!limit.scopes.includes('admin')) {
    const scopes = requested.scopes.filter((scope) => !limit.scopes.includes(scope));
    if (scopes.length > 0) excess.scopes = scopes;
  }
  if (limit.datastoreIds !== null) {
    const allowed = new Set(limit.datastoreIds);
    if (requested.datastoreIds === null) excess.datastoreIds = 'all';
    else {
      const outside = requested.datastoreIds.filter((id) => !allowed.has(id));
      if (outside.length > 0) excess.datastoreIds = outside;
    }
  }
  if (limit.expiresAt !== null && (requested.expiresAt === null || Date.parse(requested.expiresAt) > Date.parse(limit.expiresAt))) {
    excess.expiresAt = { requested: requested.expiresAt, latest: limit.expiresAt };
  }
  if (Object.keys(excess).length > 0) {
    throw new RagdeskError('forbidden', `A key cannot grant more than it holds: ${Object.keys(excess).join(', ')}`, {
      details: { excess },
    });
  }
}
