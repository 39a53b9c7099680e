import { requirePrincipal } from '../auth.js';
import { json, type Route } from '../operation.js';

/**
 * Who the key belongs to: the connection test of automation tools (the reference's Zapier app
 * calls it before anything else). Nothing secret: the owner id, the key's id (also inside the key
 * itself) and its grant.
 */
export const accountRoutes: Route[] = [
  {
    method: 'GET',
    path: '/me',
    operationId: 'getKeyOwner',
    summary:
      'The owner of the API key and what the key may do: `id` and `name` (both the owner id, where the reference service puts its ' +
      'organization), `ownerId`, `keyId`, `scopes`, `datastoreIds` (null: every datastore of the owner). Any valid key, whatever its scopes.',
    tag: 'meta',
    auth: 'key',
    response: 'KeyOwner',
    errors: [],
    async run(context) {
      const principal = requirePrincipal(context.principal);
      return json({
        id: principal.ownerId,
        name: principal.ownerId,
        ownerId: principal.ownerId,
        keyId: principal.keyId,
        scopes: [...principal.scopes],
        datastoreIds: principal.datastoreIds === null ? null : [...principal.datastoreIds],
      });
    },
  },
  {
    method: 'GET',
    path: '/models',
    operationId: 'listServerModels',
    summary:
      'The model names this server runs (`models`), the one an agent created without `modelName` gets (`default`) and the chat adapter ' +
      '(`answerer`). An offline server (the extractive answerer) runs only `local_extractive`. Creating or updating an agent to another ' +
      'model, or a query naming one, answers 400 `model_not_available`. Any valid key.',
    tag: 'meta',
    auth: 'key',
    response: 'ServerModels',
    errors: [],
    async run(context) {
      requirePrincipal(context.principal);
      return json(context.ragdesk.agents.models());
    },
  },
  {
    method: 'GET',
    path: '/usage',
    operationId: 'getUsage',
    summary:
      'What the key owner uses against each limit: agent queries this period, stored tokens, chunks, datasources and bytes of stored files, each with `used` and `limit` (null: no limit), ' +
      'and the limits of one document. The figures the 402 `usage_limit` answers are decided on.',
    tag: 'meta',
    auth: { scope: 'read' },
    response: 'Usage',
    errors: [],
    async run(context) {
      return json(await context.ragdesk.usage.get(requirePrincipal(context.principal).ownerId));
    },
  },
];
