import { RagdeskError, apiKeyCreateSchema, assertWithinGrant, parseInput, type ApiKey } from '../../../src/index.js';
import { missing } from '../access.js';
import { requirePrincipal, type Principal } from '../auth.js';
import { readJsonObject } from '../body.js';
import { json, param, type OperationContext, type Route } from '../operation.js';

/** What a key may ask for a new key: the library's fields but the owner, which is always the caller's. */
const apiKeyCreateBodySchema = apiKeyCreateSchema.omit({ ownerId: true });

/** A key as listed: never the secret nor its digest. */
export function apiKeyToWire(key: ApiKey) {
  return {
    id: key.id,
    ownerId: key.ownerId,
    name: key.name,
    prefix: key.prefix,
    scopes: [...key.scopes],
    datastoreIds: key.datastoreIds === null ? null : [...key.datastoreIds],
    createdAt: key.createdAt,
    expiresAt: key.expiresAt,
    lastUsedAt: key.lastUsedAt,
    revokedAt: key.revokedAt,
  };
}

/**
 * Keys of the key owner, managed with an `admin` key. A key never creates a key that holds more
 * than itself, and never revokes one that does; another owner's key answers like an unknown id.
 */
export const keyRoutes: Route[] = [
  {
    method: 'GET',
    path: '/keys',
    operationId: 'listApiKeys',
    summary:
      "The key owner's API keys, oldest first, revoked ones included (`revokedAt`). Each shows its `prefix` (the first characters of the secret), never the secret.",
    tag: 'keys',
    auth: { scope: 'admin' },
    response: 'ApiKey[]',
    errors: [],
    async run(context) {
      const principal = requirePrincipal(context.principal);
      return json((await context.ragdesk.keys.list({ ownerId: principal.ownerId })).map(apiKeyToWire));
    },
  },
  {
    method: 'POST',
    path: '/keys',
    operationId: 'createApiKey',
    summary:
      "Creates an API key for the key owner; the answer's `key` is the secret, shown this once. `scopes`, `datastoreIds` and `expiresAt` " +
      'may hold no more than the calling key (403 naming the excess in `details.excess`); an unknown datastore is a 404.',
    tag: 'keys',
    auth: { scope: 'admin' },
    body: { json: apiKeyCreateBodySchema, name: 'ApiKeyCreateRequest' },
    response: 'CreatedApiKey',
    errors: [400, 403, 404, 413, 415],
    async run(context) {
      const principal = requirePrincipal(context.principal);
      const body = await readJsonObject(context.request, context.options.maxJsonBytes);
      const input = parseInput(apiKeyCreateBodySchema, body, 'API key');
      for (const id of input.datastoreIds ?? []) await requireOwnDatastore(context, principal, id);
      const created = await context.ragdesk.keys.create({ ...input, ownerId: principal.ownerId }, { within: principal });
      return json({ key: created.key, ...apiKeyToWire(created.apiKey) });
    },
  },
  {
    method: 'DELETE',
    path: '/keys/{id}',
    operationId: 'revokeApiKey',
    summary:
      'Revokes an API key of the key owner: it is refused from now on. Answers the key as it is now. A key cannot revoke one that holds more than itself (403).',
    tag: 'keys',
    auth: { scope: 'admin' },
    response: 'ApiKey',
    errors: [403, 404],
    async run(context) {
      const principal = requirePrincipal(context.principal);
      const id = param(context, 'id');
      await readJsonObject(context.request, context.options.maxJsonBytes);
      const key = (await context.ragdesk.keys.list({ ownerId: principal.ownerId })).find((candidate) => candidate.id === id);
      if (!key) throw missing('API key', id);
      assertWithinGrant(principal, key);
      return json(apiKeyToWire(await context.ragdesk.keys.revoke(key.id, { ownerId: principal.ownerId })));
    },
  },
];

/** A datastore named in a new key's list must be the owner's: another owner's answers like an unknown id. */
async function requireOwnDatastore(context: OperationContext, principal: Principal, id: string): Promise<void> {
  const datastore = await context.ragdesk.datastores.get(id).catch((error: unknown) => {
    if (RagdeskError.isInstance(error) && (error.code === 'not_found' || error.code === 'invalid_request')) return null;
    throw error;
  });
  if (!datastore || datastore.ownerId !== principal.ownerId) throw missing('datastore', id);
}
