import type { Ragdesk } from '../../src/index.js';
import { Dispatcher } from './dispatch.js';
import { handleFetch, type FetchInfo } from './fetch-bridge.js';
import { nodeListener, type NodeListener } from './node-bridge.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { resolveOptions, type HttpHandlerOptions } from './options.js';
import { allRoutes } from './routes/index.js';
import { UiServer } from './ui/serve-ui.js';

export interface RagdeskHttpHandler extends NodeListener {
  /** The web-standard form for Hono and other fetch servers. */
  fetch(request: Request, info?: FetchInfo): Promise<Response>;
  /** The OpenAPI 3.1 document also served at `GET {basePath}/openapi.json`. */
  openapi(): Record<string, unknown>;
}

const VERSION = '0.1.0';

/**
 * The HTTP API (docs/api.md) over a ragdesk instance, mountable on any Node server: call it as
 * `(req, res, next?)` (node:http, Express, Fastify) or use `.fetch(request)` (Hono, fetch servers).
 * Replaces no globals and keeps no state beyond the options (and the optional rate limiter).
 */
export function createHttpHandler(ragdesk: Ragdesk, options: HttpHandlerOptions = {}): RagdeskHttpHandler {
  const resolved = resolveOptions(options);
  let document: Record<string, unknown> | undefined;
  const routes = allRoutes(() => openapi(), resolved.basePath, resolved.openaiCompatBasePath);
  const openapi = () => (document ??= buildOpenApiDocument(routes, resolved.basePath, { title: 'ragdesk', version: VERSION }));
  const dispatcher = new Dispatcher(ragdesk, resolved, routes);
  const api = nodeListener(dispatcher);
  // The web console (opt-in): its page and assets answer first; every other request is the API's.
  const ui = options.ui ? new UiServer(options.ui === true ? {} : options.ui, resolved.basePath, resolved.maxFileBytes) : null;
  const listener: NodeListener = ui
    ? (request, response, next) => void (ui.serveNode(request, response) || api(request, response, next))
    : api;
  return Object.assign(listener, {
    fetch: async (request: Request, info?: FetchInfo) => ui?.serveFetch(request) ?? handleFetch(dispatcher, request, info),
    openapi: () => structuredClone(openapi()),
  });
}
