import { randomUUID } from 'node:crypto';
import { RagdeskError, type Ragdesk } from '../../src/index.js';
import { Authenticator, requirePrincipal, requireScope, type Principal } from './auth.js';
import { errorResult, logError } from './errors.js';
import type { OperationContext, Route } from './operation.js';
import type { ResolvedOptions } from './options.js';
import { Router } from './router.js';
import type { HttpRequest, HttpResult } from './types.js';

const CLIENT_REQUEST_ID = /^[\w.:-]{1,100}$/;

/**
 * One request from start to result: route, identify the caller, rate-limit, check the scope, run,
 * and turn any failure into the JSON error body. Knows nothing of node:http or fetch.
 */
export class Dispatcher {
  private readonly router: Router;
  private readonly authenticator: Authenticator;

  constructor(
    private readonly ragdesk: Ragdesk,
    private readonly options: ResolvedOptions,
    routes: readonly Route[],
  ) {
    this.router = new Router(routes);
    this.authenticator = new Authenticator(ragdesk.keys, options.apiKeys);
  }

  /** The path below the base path, or null when the request is not for this handler. */
  relativePath(path: string): string | null {
    const base = this.options.basePath;
    if (base === '') return path || '/';
    if (path === base) return '/';
    return path.startsWith(`${base}/`) ? path.slice(base.length) : null;
  }

  async handle(request: HttpRequest, relativePath: string): Promise<HttpResult> {
    const incoming = request.header('x-request-id');
    const requestId = incoming !== undefined && CLIENT_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    let where = `${request.method} ${relativePath}`;
    let result: HttpResult;
    try {
      const match = this.router.match(request.method, relativePath);
      if (match.kind === 'not_found') throw new RagdeskError('not_found', `No route for ${request.method} ${this.options.basePath}${relativePath}`.slice(0, 300));
      if (match.kind === 'method_not_allowed') {
        throw new RagdeskError('method_not_allowed', `${request.method} is not allowed here; use ${match.allowed.join(' or ')}`, {
          details: { allowed: match.allowed },
        });
      }
      const { route, params } = match;
      where = `${route.method} ${route.path}`;
      const principal = route.auth === 'none' ? null : await this.authenticator.identify(request);
      await this.limitRate(request, principal);
      if (typeof route.auth === 'object') requireScope(requirePrincipal(principal), route.auth.scope);
      const context: OperationContext = {
        ragdesk: this.ragdesk,
        request,
        params,
        principal,
        options: this.options,
        reportBug: (error) => logError(this.options.logger, error, requestId, where),
      };
      result = await route.run(context);
    } catch (error) {
      result = errorResult(error, requestId, this.options.logger, where);
    }
    const headers = { ...(result.headers ?? {}), 'x-request-id': requestId };
    return { ...result, headers };
  }

  private async limitRate(request: HttpRequest, principal: Principal | null): Promise<void> {
    const limiter = this.options.rateLimiter;
    if (!limiter) return;
    const caller = principal ? `key:${principal.keyId}` : `address:${request.remoteAddress ?? 'unknown'}`;
    const decision = await limiter.take(caller);
    if (!decision.allowed) {
      throw new RagdeskError('rate_limited', 'Too many requests; slow down', {
        details: decision.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: decision.retryAfterSeconds },
        retryable: true,
      });
    }
  }
}
