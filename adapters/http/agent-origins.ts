import { RagdeskError, allowedOriginsOf, type Agent } from '../../src/index.js';
import { DEFAULT_ALLOWED, DEFAULT_EXPOSED, preflightAnswer, wellFormedOrigin, type CorsPolicy } from './cors.js';
import type { HttpRequest, HttpResult } from './types.js';

/**
 * Browser access to an agent's public routes (read the agent, ask it, read a conversation, mark an
 * answer) from the sites the agent lists in `interfaceConfig.authorizedDomains`, on top of the
 * handler-wide `cors` option. A request needs a decision only when a browser sends it from another
 * site: no `Origin` (servers, curl), the server's own pages and origins the `cors` option allows
 * are answered as before. Any other origin must be listed by the agent, else a 403
 * `origin_not_allowed`. This limits which web pages can use the agent through their visitors'
 * browsers (and spend the owner's quota); it is not authentication, since a client outside a
 * browser can send any `Origin`.
 */

/** The origin of a cross-site browser request that the agent's list must allow, or null when none is needed. */
export function originToCheck(request: HttpRequest, cors: CorsPolicy | undefined): string | null {
  const origin = request.header('origin');
  if (origin === undefined) return null;
  if (sameOrigin(request, origin)) return null;
  if (cors?.allowsRequest(request) === true) return null;
  // `Origin: null` (sandboxed frames, file: pages) or garbage: checked, and refused.
  return wellFormedOrigin(request) ?? 'null';
}

/**
 * The page is the server's own. Browsers set `Sec-Fetch-Site` and `Host`, and a page cannot forge
 * them (a script setting `X-Forwarded-Host` on a cross-site request needs a preflight this handler
 * does not grant), so behind a proxy that rewrites `Host` the forwarded host still says who we are.
 */
function sameOrigin(request: HttpRequest, origin: string): boolean {
  if (request.header('sec-fetch-site') === 'same-origin') return true;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return false;
  }
  const forwarded = request.header('x-forwarded-host')?.split(',')[0]?.trim();
  return [request.header('host'), forwarded].some((value) => value !== undefined && value.toLowerCase() === host);
}

/** Every agent the request concerns lists the origin (none found: not allowed, as for an unlisted one). */
export function agentsAllow(agents: readonly Agent[], origin: string): boolean {
  return agents.length > 0 && agents.every((agent) => allowedOriginsOf(agent).includes(origin));
}

export function originNotAllowed(origin: string): RagdeskError {
  return new RagdeskError('origin_not_allowed', 'This site is not allowed to use this agent from a browser', {
    details: { origin: origin.slice(0, 300) },
  });
}

/**
 * Headers for an answer to a checked origin. A refused origin gets `Access-Control-Allow-Origin`
 * on its 403 too: the widget can then read the `origin_not_allowed` code and say the site is not
 * allowed, where a response without it reaches the script only as a network failure (the same as a
 * server that is down). The 403 tells that page nothing it could not learn without a browser.
 */
export function agentOriginHeaders(origin: string): Record<string, string> {
  return { 'access-control-allow-origin': origin, 'access-control-expose-headers': DEFAULT_EXPOSED.join(', '), vary: 'Origin' };
}

/** The answer to a preflight from a listed origin (the methods of the path, the usual request headers). */
export function agentPreflight(origin: string, methods: readonly string[]): HttpResult {
  return preflightAnswer({ 'access-control-allow-origin': origin }, methods, DEFAULT_ALLOWED.join(', '), '600');
}
