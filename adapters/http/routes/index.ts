import type { Route } from '../operation.js';
import { json } from '../operation.js';
import { agentRoutes } from './agents.js';
import { datasourceRoutes } from './datasources.js';
import { datastoreRoutes } from './datastores.js';

/** Every route of the HTTP API (docs/api.md), and the OpenAPI document (served as built). */
export function allRoutes(document: () => unknown): Route[] {
  return [
    ...agentRoutes,
    ...datastoreRoutes,
    ...datasourceRoutes,
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
