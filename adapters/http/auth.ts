import { createHash, timingSafeEqual } from 'node:crypto';
import { RagdeskError, hasScope, allowsDatastore, type ApiKeyScope, type Ragdesk } from '../../src/index.js';
import type { ConfiguredApiKey } from './options.js';
import type { HttpRequest } from './types.js';
import { optionError } from '../kit/option-checks.js';

/** Who is calling: the owner and grant of a verified API key. */
export interface Principal {
  keyId: string;
  ownerId: string;
  scopes: readonly ApiKeyScope[];
  datastoreIds: readonly string[] | null;
  /** When the key stops working; null: never (configured keys never expire). */
  expiresAt: string | null;
}

interface HashedConfiguredKey {
  digest: Buffer;
  principal: Principal;
}

/** Checks `Authorization: Bearer <key>` against configured keys, then against `ragdesk.keys`. */
export class Authenticator {
  private readonly configured: HashedConfiguredKey[];

  constructor(
    private readonly keys: Pick<Ragdesk['keys'], 'verify'>,
    configured: readonly ConfiguredApiKey[],
  ) {
    this.configured = configured.map((entry, index) => {
      if (typeof entry.key !== 'string' || entry.key.length < 16)
        throw optionError('createHttpHandler', `keys[${index}].key`, 'must be a string of at least 16 characters', describeKey(entry.key));
      return {
        digest: digest(entry.key),
        principal: {
          keyId: `configured-${index + 1}`,
          ownerId: entry.ownerId,
          scopes: entry.scopes ?? ['admin'],
          datastoreIds: entry.datastoreIds ?? null,
          expiresAt: null,
        },
      };
    });
  }

  /** The caller, or null when the request carries no Authorization header at all. Throws 401 for a bad one. */
  async identify(request: HttpRequest): Promise<Principal | null> {
    const header = request.header('authorization');
    if (header === undefined || header === '') return null;
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (!match?.[1]) {
      throw new RagdeskError('unauthorized', 'The Authorization header must be "Bearer <API key>"');
    }
    const secret = match[1];
    const fromConfig = this.matchConfigured(secret);
    if (fromConfig) return fromConfig;
    const key = await this.keys.verify(secret);
    if (!key) throw new RagdeskError('unauthorized', 'Unknown, revoked or expired API key');
    return { keyId: key.id, ownerId: key.ownerId, scopes: key.scopes, datastoreIds: key.datastoreIds, expiresAt: key.expiresAt };
  }

  /** Compares against every configured key without stopping early, in constant time per key. */
  private matchConfigured(secret: string): Principal | null {
    if (this.configured.length === 0) return null;
    const presented = digest(secret);
    let found: Principal | null = null;
    for (const entry of this.configured) {
      if (timingSafeEqual(entry.digest, presented) && found === null) found = entry.principal;
    }
    return found;
  }
}

function digest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

export function requirePrincipal(principal: Principal | null): Principal {
  if (!principal) throw missingKeyError();
  return principal;
}

/** The one 401 for a request without a key, whatever the route and whether or not the id exists. */
export function missingKeyError(): RagdeskError {
  return new RagdeskError('unauthorized', 'Missing API key: send "Authorization: Bearer <API key>"');
}

export function requireScope(principal: Principal, scope: ApiKeyScope): void {
  if (!hasScope(principal, scope)) {
    throw new RagdeskError('forbidden', `This API key lacks the "${scope}" scope`, { details: { scope } });
  }
}

/** Restricted keys may only touch their datastores. Same owner, so 403 reveals nothing new. */
export function requireDatastoreAccess(principal: Principal, datastoreId: string): void {
  if (!allowsDatastore(principal, datastoreId)) {
    throw new RagdeskError('forbidden', `This API key is limited to other datastores`, { details: { datastoreId } });
  }
}

/** What a refused configured key was, without echoing a secret into logs. */
function describeKey(key: unknown): string {
  return typeof key === 'string' ? `a string of ${key.length} characters` : typeof key;
}
