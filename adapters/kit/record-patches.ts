import type { AgentRecord, ApiKeyRecord } from '../../src/ports/agent-key-usage-records.js';
import type { DatasourceRecord, DatastoreRecord, JobRecord } from '../../src/ports/records.js';
import type { AgentPatch, ApiKeyPatch, DatasourcePatch, DatastorePatch, JobPatch } from '../../src/ports/store.js';

/**
 * Which fields a patch of a datastore, a datasource, a job, an agent or an API key may change, shared by every store so they
 * agree. A patch's undefined fields leave the record as it is; keys the record does not have are
 * ignored (JavaScript callers may pass anything).
 */

/** The only datastore fields a patch may change. */
export const DATASTORE_PATCH_KEYS = ['name', 'description', 'embeddingModel', 'embeddingDimensions', 'updatedAt'] as const;
/** Datasource fields a patch may not change (DatasourcePatch omits them; JavaScript callers may not). */
const DATASOURCE_FIXED_KEYS = new Set(['id', 'datastoreId', 'type', 'createdAt']);
/** Job fields a patch never changes. */
const JOB_FIXED_KEYS = new Set(['id', 'kind', 'datastoreId', 'datasourceId', 'createdAt']);
/** Agent fields a patch may not change (AgentPatch omits them; JavaScript callers may not). */
const AGENT_FIXED_KEYS = new Set(['id', 'ownerId', 'createdAt']);
/** The only API key fields a patch may change. */
export const API_KEY_PATCH_KEYS = ['name', 'lastUsedAt', 'revokedAt'] as const;

function patched<T extends object>(current: T, patch: object, fixed: ReadonlySet<string>, copy: (value: unknown) => unknown): T {
  const next: T = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined || fixed.has(key) || !(key in next)) continue;
    Object.assign(next, { [key]: copy(value) });
  }
  return next;
}

function picked<T extends object, P extends object>(current: T, patch: P, keys: readonly (keyof P & keyof T)[]): T {
  const next: T = { ...current };
  for (const key of keys) {
    const value = patch[key];
    if (value !== undefined) Object.assign(next, { [key]: value });
  }
  return next;
}

const asIs = (value: unknown): unknown => value;

/** A copy of `current` with the patch's given fields applied. */
export function patchedDatastore(current: DatastoreRecord, patch: DatastorePatch): DatastoreRecord {
  return picked(current, patch, DATASTORE_PATCH_KEYS);
}

/** A copy of `current` with the patch's changeable fields applied; `copy` lets a store not share the caller's objects. */
export function patchedDatasource(
  current: DatasourceRecord,
  patch: DatasourcePatch,
  copy: (value: unknown) => unknown = asIs,
): DatasourceRecord {
  return patched(current, patch, DATASOURCE_FIXED_KEYS, copy);
}

/** A copy of `current` with the patch's changeable fields applied. */
export function patchedJob(current: JobRecord, patch: JobPatch): JobRecord {
  return patched(current, patch, JOB_FIXED_KEYS, asIs);
}

/** A copy of `current` with the patch's changeable fields applied; `copy` lets a store not share the caller's arrays and objects. */
export function patchedAgent(current: AgentRecord, patch: AgentPatch, copy: (value: unknown) => unknown = asIs): AgentRecord {
  return patched(current, patch, AGENT_FIXED_KEYS, copy);
}

/** A copy of `current` with the patch's name, last use and revocation applied. */
export function patchedApiKey(current: ApiKeyRecord, patch: ApiKeyPatch): ApiKeyRecord {
  return picked(current, patch, API_KEY_PATCH_KEYS);
}
