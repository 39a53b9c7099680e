import type { ApiKeyRecord } from '../agent-key-usage-records.js';

/** Fields of an API key that may change after creation. */
export type ApiKeyPatch = Partial<Pick<ApiKeyRecord, 'name' | 'lastUsedAt' | 'revokedAt'>>;

/** API key records; secrets are never stored, only their digests (Store conformance: `API keys`). */
export interface ApiKeyStore {
  /** Inserts an API key record. Throws `conflict` on a duplicate id or hash. */
  createApiKey(record: ApiKeyRecord): Promise<void>;
  /**
   * The key with this id, or null (revoked keys included: the caller checks `revokedAt`). This is
   * how a presented secret is verified: the secret carries its key id, the record's salted digest
   * is then compared in constant time by the caller, never by the Store.
   */
  getApiKey(id: string): Promise<ApiKeyRecord | null>;
  /**
   * The key whose `hash` matches exactly (revoked keys included). Used for keys created before the
   * secret carried its id (stored as plain SHA-256 hex) and to detect duplicates when copying stores.
   */
  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | null>;
  /** Keys oldest first (revoked included); with `ownerId`, only that owner's. */
  listApiKeys(filter?: { ownerId?: string }): Promise<ApiKeyRecord[]>;
  /** Applies the patch; returns the updated record, or null when the id is unknown. */
  updateApiKey(id: string, patch: ApiKeyPatch): Promise<ApiKeyRecord | null>;
}
