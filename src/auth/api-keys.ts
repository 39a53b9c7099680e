import { notFound, RagdeskError } from '../errors.js';
import { assertWithinGrant, type GrantLimit } from './grant-limits.js';
import type { ApiKeyRecord } from '../ports/agent-key-usage-records.js';
import type { ApiKeyStore } from '../ports/store.js';
import { newId, nowIso } from '../util/ids.js';
import { idSchema, parseInput } from '../validation.js';
import { apiKeyCreateSchema, type ApiKeyCreateInput } from './schemas.js';
import { burnComparison, digestSecret, generateSecret, lookupOf, looksLikeKey, matchesStored, shownPrefix } from './secrets.js';

/** An API key as the library shows it: everything but the hash. */
export type ApiKey = Omit<ApiKeyRecord, 'hash' | 'expiresAt'> & { expiresAt: string | null };

export interface CreatedApiKey {
  /** The secret, to hand to the client. Shown once: only its hash is stored. */
  key: string;
  apiKey: ApiKey;
}

export interface ApiKeyServiceOptions {
  /**
   * `lastUsedAt` is written at most once per key in this many milliseconds (default 60 000), so a
   * burst of requests with one key costs one write, not one per request.
   */
  touchIntervalMs?: number;
  /** @internal The time in milliseconds (tests move it past an expiry). */
  now?: () => number;
}

type KeyStore = ApiKeyStore;

/**
 * `ragdesk.keys`: API keys that belong to an owner. The secret is `rdk_<key id>_<43 random base64url
 * characters>`; the account store keeps an HMAC-SHA256 of it under a per-key random salt
 * (`hmac-sha256:<salt>:<digest>`) and a short prefix for listings, never the secret. Verification
 * loads the record by the id the secret carries and compares digests with `timingSafeEqual`.
 */
export class ApiKeyService {
  private readonly touchIntervalMs: number;
  private readonly now: () => number;
  /** When this process last wrote `lastUsedAt` per key id (also covers writes still in flight). */
  private readonly touched = new Map<string, number>();

  /** @internal Created by `createRagdesk`. */
  constructor(
    private readonly store: KeyStore,
    private readonly assertOpen: () => void,
    options: ApiKeyServiceOptions = {},
  ) {
    this.touchIntervalMs = options.touchIntervalMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * Creates a key for an owner; the returned `key` is the only copy of the secret. With `within`,
   * the key may hold no more than that grant (`forbidden` otherwise): how a key creates keys.
   */
  async create(input: ApiKeyCreateInput, options: { within?: GrantLimit } = {}): Promise<CreatedApiKey> {
    const parsed = parseInput(apiKeyCreateSchema, input, 'API key');
    const expiresAt = parsed.expiresAt === null ? null : new Date(parsed.expiresAt).toISOString();
    if (expiresAt !== null && Date.parse(expiresAt) <= this.now()) {
      throw new RagdeskError('invalid_request', 'API key: expiresAt must be in the future', {
        details: { issues: [{ path: 'expiresAt', message: 'must be in the future' }] },
      });
    }
    const scopes = [...new Set(parsed.scopes)];
    const datastoreIds = parsed.datastoreIds === null ? null : [...new Set(parsed.datastoreIds)];
    if (options.within) assertWithinGrant(options.within, { scopes, datastoreIds, expiresAt });
    this.assertOpen();
    const id = newId();
    const key = generateSecret(id);
    const record: ApiKeyRecord = {
      id,
      ownerId: parsed.ownerId,
      name: parsed.name.trim(),
      hash: digestSecret(key),
      prefix: shownPrefix(key),
      scopes,
      datastoreIds,
      createdAt: new Date(this.now()).toISOString(),
      lastUsedAt: null,
      revokedAt: null,
      ...(expiresAt === null ? {} : { expiresAt }),
    };
    await this.store.createApiKey(record);
    return { key, apiKey: withoutHash(record) };
  }

  /**
   * The key this secret belongs to, or null when it is unknown or revoked (the caller cannot tell
   * which: both are "not a valid key"). Records `lastUsedAt`, at most once per `touchIntervalMs`.
   */
  async verify(secret: string): Promise<ApiKey | null> {
    if (typeof secret !== 'string' || !looksLikeKey(secret)) return null;
    this.assertOpen();
    const lookup = lookupOf(secret);
    if (lookup.kind === 'none') return null;
    // Keys created before the id was embedded are found by their plain SHA-256 (they keep working
    // until revoked); current keys by their id.
    const record = lookup.kind === 'id' ? await this.store.getApiKey(lookup.id) : await this.store.findApiKeyByHash(lookup.hash);
    if (!record) {
      burnComparison(secret);
      return null;
    }
    if (!matchesStored(record.hash, secret) || record.revokedAt !== null) return null;
    if (isExpired(record, this.now())) return null;
    return withoutHash(this.touch(record));
  }

  /** Keys oldest first, revoked ones included (they show `revokedAt`). */
  async list(options: { ownerId?: string } = {}): Promise<ApiKey[]> {
    if (options.ownerId !== undefined) parseInput(idSchema, options.ownerId, 'owner id');
    this.assertOpen();
    const records = await this.store.listApiKeys(options.ownerId === undefined ? {} : { ownerId: options.ownerId });
    return records.map(withoutHash);
  }

  /**
   * Revokes a key: from now on it is refused. With `ownerId`, only that owner's key can be revoked
   * (another owner's id is `not_found`). Revoking twice keeps the first `revokedAt`.
   */
  async revoke(id: string, options: { ownerId?: string } = {}): Promise<ApiKey> {
    parseInput(idSchema, id, 'API key id');
    const found = (await this.list(options)).find((key) => key.id === id);
    if (!found) throw notFound('API key', id);
    if (found.revokedAt !== null) return found;
    const updated = await this.store.updateApiKey(id, { revokedAt: nowIso() });
    if (!updated) throw notFound('API key', id);
    this.touched.delete(id);
    return withoutHash(updated);
  }

  private touch(record: ApiKeyRecord): ApiKeyRecord {
    const now = this.now();
    const stored = record.lastUsedAt === null ? 0 : Date.parse(record.lastUsedAt);
    const last = Math.max(stored, this.touched.get(record.id) ?? 0);
    if (now - last < this.touchIntervalMs) return record;
    this.touched.set(record.id, now);
    const lastUsedAt = new Date(now).toISOString();
    // Not awaited: a request never waits for (or fails because of) bookkeeping. A lost write only
    // makes `lastUsedAt` older than it should be.
    this.store.updateApiKey(record.id, { lastUsedAt }).catch(() => undefined);
    return { ...record, lastUsedAt };
  }
}

function isExpired(record: ApiKeyRecord, now: number): boolean {
  return record.expiresAt !== undefined && record.expiresAt !== null && Date.parse(record.expiresAt) <= now;
}

/** The record without its digest; `expiresAt` always present (null: never). */
function withoutHash(record: ApiKeyRecord): ApiKey {
  const { hash: _hash, ...rest } = record;
  return {
    ...rest,
    scopes: [...rest.scopes],
    datastoreIds: rest.datastoreIds === null ? null : [...rest.datastoreIds],
    expiresAt: rest.expiresAt ?? null,
  };
}
