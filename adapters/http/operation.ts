import type { z } from 'zod';
import { RagdeskError, type Agent, type ApiKeyScope, type Ragdesk } from '../../src/index.js';
import type { Principal } from './auth.js';
import type { ResolvedOptions } from './options.js';
import type { HttpRequest, HttpResult, JsonResult } from './types.js';

/** What one route handler gets. */
export interface OperationContext {
  ragdesk: Ragdesk;
  request: HttpRequest;
  /** Decoded path parameters. */
  params: Readonly<Record<string, string>>;
  /** The verified caller; null only on routes with `auth: 'public-agent'` or `'none'`. */
  principal: Principal | null;
  options: ResolvedOptions;
  /** Logs an unexpected error with the request id (for failures after a stream opened). */
  reportBug: (error: unknown) => void;
}

/**
 * How a route authenticates: `scope` routes need a key with that scope; `key` needs a valid key of
 * any scope; `public-agent` lets a public agent be read or queried without a key; `none` is for the
 * OpenAPI document.
 */
type RouteAuth = { scope: ApiKeyScope } | 'key' | 'public-agent' | 'none';

/** The request body, for routing and for the OpenAPI document. */
type RouteBody =
  | { json: z.ZodType; name: string }
  /** Raw bytes (an upload link's file), described by media types only. */
  | { raw: readonly string[]; description: string }
  | { multipart: z.ZodType; name: string }
  | { json: z.ZodType; multipart: z.ZodType; name: string; multipartName: string };

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Relative to the base path, with `{name}` parameters, e.g. `/agents/{id}/query`. */
  path: string;
  operationId: string;
  summary: string;
  tag: 'agents' | 'conversations' | 'datastores' | 'datasources' | 'uploads' | 'keys' | 'meta' | 'openai';
  auth: RouteAuth;
  body?: RouteBody;
  /** Query string parameters, for the document. */
  queryParameters?: { name: string; description: string; required: boolean }[];
  /**
   * Component name of the 200 response (`Agent`, `Datastore[]`, ...); `raw` for the OpenAPI document
   * itself; `event-stream` when the answer is always the stream `streams` describes.
   */
  response: string;
  /** Error statuses worth documenting beyond the ones every route can give. */
  errors: number[];
  deprecated?: boolean;
  /**
   * The path is absolute, not below the base path: the reference service's public host serves a few
   * routes without `/api` (`/agents/query/{id}`), kept as aliases so its clients work unchanged.
   */
  outsideBasePath?: boolean;
  /**
   * May answer with an event stream: `true` for ragdesk's agent query frames, or a description of
   * the frames. `'only'` in `response` means the stream is the one answer.
   */
  streams?: true | string;
  /**
   * The agents a request concerns, on routes a widget calls from other sites: a browser request from
   * an origin neither the `cors` option nor these agents' `authorizedDomains` allow is a 403
   * `origin_not_allowed` (adapters/http/agent-origins.ts). Also run for preflights, without a caller.
   */
  originAgents?: (context: OperationContext) => Promise<readonly Agent[]>;
  run(context: OperationContext): Promise<HttpResult>;
}

export function json(body: unknown, status = 200): JsonResult {
  return { kind: 'json', status, body };
}

/** A path parameter of the matched route (the router guarantees it is there). */
export function param(context: OperationContext, name: string): string {
  const value = context.params[name];
  if (value === undefined) throw new RagdeskError('internal', `Route parameter ${name} is missing`);
  return value;
}
