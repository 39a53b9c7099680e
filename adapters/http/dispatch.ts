import { randomUUID } from 'node:crypto';
import { RagdeskError, type Ragdesk } from '../../src/index.js';
import { agentOriginHeaders, agentPreflight, agentsAllow, originNotAllowed, originToCheck } from './agent-origins.js';
import { Authenticator, requirePrincipal, requireScope, type Principal } from './auth.js';
import { isPreflight } from './cors.js';
import { errorResult, logError } from './errors.js';
import { asOpenAIError } from './openai-compat/errors.js';
import type { OperationContext, Route } from './operation.js';
import type { ResolvedOptions } from './options.js';
import { Router } from './router.js';
import { TurnGate } from './turns.js';
import type { HttpRequest, HttpResult } from './types.js';

/** A client's own request id is echoed (and logged) when it is a plain token and not a key pasted by mistake. */
const CLIENT_REQUEST_ID = /^(?!rdk_)[\w.:-]{1,100}$/i;
/** Request work one event-loop turn may start before further requests wait for the next turns (see TurnGate). */
const TURN_BUDGET_MS = 20;

/**
 * One request from start to result: route, identify the caller, rate-limit, check the scope, run,
 * and turn any failure into the JSON error body. Knows nothing of node:http or fetch.
 */
export class Dispatcher {
  private readonly router: Router;
  /** Routes answered outside the base path (aliases the reference service serves without `/api`). */
  private readonly outsideRouter: Router;
  private readonly authenticator: Authenticator;
  private readonly turns = new TurnGate(TURN_BUDGET_MS);

  constructor(
    private readonly ragdesk: Ragdesk,
    private readonly options: ResolvedOptions,
    routes: readonly Route[],
  ) {
    this.router = new Router(routes.filter((route) => !route.outsideBasePath));
    this.outsideRouter = new Router(routes.filter((route) => route.outsideBasePath === true));
    this.authenticator = new Authenticator(ragdesk.keys, options.apiKeys);
  }

  /** The path below the base path, or null when the request is not for this handler. */
  relativePath(path: string): string | null {
    const base = this.options.basePath;
    if (base === '') return path || '/';
    if (path === base) return '/';
    if (path.startsWith(`${base}/`)) return path.slice(base.length);
    return this.outsideRouter.methodsFor(path).length > 0 || this.isOpenAIPath(path) ? path : null;
  }

  /** The router for a request: the alias routes outside the base path, or the main ones. */
  private routerFor(request: HttpRequest): Router {
    const base = this.options.basePath;
    const inside = base === '' || request.path === base || request.path.startsWith(`${base}/`);
    return inside ? this.router : this.outsideRouter;
  }

  async handle(request: HttpRequest, relativePath: string): Promise<HttpResult> {
    const admitted = this.turns.enter();
    if (admitted) await admitted;
    const incoming = request.header('x-request-id');
    const requestId = incoming !== undefined && CLIENT_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    let where = `${request.method} ${relativePath}`;
    let result: HttpResult;
    const cors = this.options.cors;
    const preflight = isPreflight(request);
    /** A cross-site origin checked against an agent's list: its answer (refusal included) carries CORS headers for it. */
    let checkedOrigin: string | null = null;
    /** The answer depends on the Origin (an agent's widget route): caches must keep answers per origin. */
    let variesByOrigin = false;
    try {
      if (preflight) {
        const answer = await this.preflight(relativePath, request, requestId);
        if (answer) return this.withRequestId(answer, requestId);
      }
      const match = this.routerFor(request).match(request.method, relativePath);
      if (match.kind === 'not_found')
        throw new RagdeskError('not_found', `No route for ${request.method} ${this.options.basePath}${relativePath}`.slice(0, 300));
      if (match.kind === 'method_not_allowed') {
        throw new RagdeskError('method_not_allowed', `${request.method} is not allowed here; use ${match.allowed.join(' or ')}`, {
          details: { allowed: match.allowed },
        });
      }
      const { route, params } = match;
      where = `${route.method} ${route.path}`;
      const principal = route.auth === 'none' ? null : await this.identify(request);
      const context = this.context(request, params, principal, requestId, where);
      if (route.originAgents) {
        variesByOrigin = true;
        checkedOrigin = originToCheck(request, cors);
        if (checkedOrigin !== null && !agentsAllow(await route.originAgents(context), checkedOrigin)) throw originNotAllowed(checkedOrigin);
      }
      await this.limitRate(request, principal);
      if (typeof route.auth === 'object') requireScope(requirePrincipal(principal), route.auth.scope);
      if (route.auth === 'key') requirePrincipal(principal);
      result = await route.run(context);
      if (result.kind === 'stream') result = { ...result, pace: () => this.turns.enter() };
    } catch (error) {
      result = errorResult(error, requestId, this.options.logger, where);
      if (this.isOpenAIPath(request.path)) result = asOpenAIError(result);
    }
    // Errors and streams carry CORS headers too: a browser script can then read why it was refused.
    const corsHeaders = {
      ...(variesByOrigin ? { vary: 'Origin' } : {}),
      ...(cors && !preflight ? cors.responseHeaders(request) : {}),
      ...(checkedOrigin === null ? {} : agentOriginHeaders(checkedOrigin)),
    };
    return this.withRequestId({ ...result, headers: { ...(result.headers ?? {}), ...corsHeaders } }, requestId);
  }

  private context(
    request: HttpRequest,
    params: Readonly<Record<string, string>>,
    principal: Principal | null,
    requestId: string,
    where: string,
  ): OperationContext {
    return {
      ragdesk: this.ragdesk,
      request,
      params,
      principal,
      options: this.options,
      reportBug: (error) => logError(this.options.logger, error, requestId, where),
    };
  }

  /** Requests on the OpenAI-compatible routes get errors in OpenAI's shape, unmatched paths below them too. */
  private isOpenAIPath(path: string): boolean {
    const base = this.options.openaiCompatBasePath;
    return base !== null && (path === base || path.startsWith(`${base}/`));
  }

  private withRequestId(result: HttpResult, requestId: string): HttpResult {
    return { ...result, headers: { ...(result.headers ?? {}), 'x-request-id': requestId } };
  }

  /**
   * A CORS preflight, answered before any key check (browsers never send credentials with one): by
   * the `cors` option for the origins it allows, else, on an agent's public routes, by the agent's
   * own list. Null when neither applies: the request is then routed like any other (a 405).
   */
  private async preflight(relativePath: string, request: HttpRequest, requestId: string): Promise<HttpResult | null> {
    const router = this.routerFor(request);
    const methods = router.methodsFor(relativePath);
    const cors = this.options.cors;
    try {
      if (methods.length === 0) {
        if (!cors) return null;
        throw new RagdeskError('not_found', `No route for ${this.options.basePath}${relativePath}`.slice(0, 300));
      }
      if (cors?.allowsRequest(request)) return cors.preflight(request, methods);
      const asked = router.match(request.header('access-control-request-method') ?? '', relativePath);
      const route = asked.kind === 'found' ? asked.route : undefined;
      if (asked.kind === 'found' && route?.originAgents) {
        const origin = originToCheck(request, undefined) ?? 'null';
        const context = this.context(request, asked.params, null, requestId, `OPTIONS ${route.path}`);
        if (!agentsAllow(await route.originAgents(context), origin)) throw originNotAllowed(origin);
        return agentPreflight(origin, methods);
      }
      return cors ? cors.preflight(request, methods) : null;
    } catch (error) {
      return errorResult(error, requestId, this.options.logger, `OPTIONS ${relativePath}`);
    }
  }

  /**
   * The caller. A refused key still costs its client address a token of the rate limiter, so
   * guessing keys is limited like any other traffic (accepted keys are limited per key).
   */
  private async identify(request: HttpRequest): Promise<Principal | null> {
    try {
      return await this.authenticator.identify(request);
    } catch (error) {
      if (RagdeskError.isInstance(error) && error.code === 'unauthorized') await this.limitRate(request, null);
      throw error;
    }
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
