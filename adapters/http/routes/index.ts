import type { Route } from '../operation.js';
import { json } from '../operation.js';
import { accountRoutes } from './account.js';
import { agentRoutes } from './agents.js';
import { conversationRoutes } from './conversations.js';
import { datasourceRoutes } from './datasources.js';
import { datastoreRoutes } from './datastores.js';
import { aiSdkChatRoute } from '../ai-sdk/route.js';
import { openaiCompatRoutes } from '../openai-compat/routes.js';
import { keyRoutes } from './keys.js';
import { uploadRoutes } from './uploads.js';

/**
 * Every route of the HTTP API (docs/api.md), and the OpenAPI document (served as built). The
 * OpenAI-compatible routes only when `openaiCompatBasePath` is given.
 */
export function allRoutes(document: () => unknown, basePath = '/api', openaiCompatBasePath: string | null = null): Route[] {
  const main = [
    ...agentRoutes,
    aiSdkChatRoute,
    ...conversationRoutes,
    ...datastoreRoutes,
    ...datasourceRoutes,
    ...accountRoutes,
    ...keyRoutes,
    ...uploadRoutes,
  ];
  return [
    ...main,
    ...referenceAliases(main, basePath),
    ...(openaiCompatBasePath === null ? [] : openaiCompatRoutes(openaiCompatBasePath, basePath)),
    {
      method: 'GET',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'This OpenAPI 3.1 document. No key needed.',
      tag: 'meta',
      auth: 'none',
      response: 'raw',
      errors: [],
      async run() {
        return json(document());
      },
    },
  ];
}

/**
 * Other paths the reference service answers for the same operations, so its clients and scripts
 * work unchanged. Each runs exactly its main route and is documented as a deprecated alias.
 */
const ALIASES: { path: string; of: string; outsideBasePath: boolean }[] = [
  { path: '/datastores/query/{id}', of: 'queryDatastore', outsideBasePath: false },
  { path: '/agents/query/{id}', of: 'queryAgent', outsideBasePath: true },
  { path: '/datastores/upsert/{datastoreId}', of: 'upsertDocuments', outsideBasePath: true },
  { path: '/datastores/update/{datastoreId}', of: 'updateDocument', outsideBasePath: true },
  { path: '/datastores/file-upload/{datastoreId}', of: 'uploadFile', outsideBasePath: true },
  { path: '/datastores/query/{id}', of: 'queryDatastore', outsideBasePath: true },
];

function referenceAliases(main: readonly Route[], basePath: string): Route[] {
  const taken = new Set(main.map((route) => `${route.method} ${route.path}`));
  const aliases: Route[] = [];
  for (const alias of ALIASES) {
    const route = main.find((candidate) => candidate.operationId === alias.of);
    if (!route) throw new Error(`alias of unknown operation ${alias.of}`);
    // With no base path an absolute alias is a plain path, and may already be the main route.
    const outside = alias.outsideBasePath && basePath !== '';
    if (!outside && taken.has(`${route.method} ${alias.path}`)) continue;
    if (!outside) taken.add(`${route.method} ${alias.path}`);
    aliases.push({
      ...route,
      path: alias.path,
      operationId: `${alias.of}Alias${aliases.length + 1}`,
      summary: `Deprecated alias of ${route.method} ${basePath}${route.path}, kept for clients of the reference service. ${route.summary}`,
      deprecated: true,
      ...(outside ? { outsideBasePath: true } : {}),
    });
  }
  return aliases;
}
