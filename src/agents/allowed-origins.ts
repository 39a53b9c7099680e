import type { AgentRecord } from '../ports/agent-key-usage-records.js';

/**
 * The sites an agent's widget may run on: its `interfaceConfig.authorizedDomains` (the reference
 * service's field name). An entry is an origin (`https://shop.example`, `http://localhost:5173`)
 * or, as the reference's dashboard saves them, a bare host (`shop.example`), which means that host
 * over https. No wildcard: a list that allowed every site would be no list at all.
 */
const HOST = '(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\\[[0-9a-f:.]+\\])';
const PORT = '(?::\\d{1,5})?';
const ORIGIN_ENTRY = new RegExp(`^https?://${HOST}${PORT}/?$`, 'i');
const HOST_ENTRY = new RegExp(`^${HOST}${PORT}$`, 'i');

/** Why an `authorizedDomains` entry is refused, or null when it is one. */
export function allowedOriginProblem(entry: string): string | null {
  const value = entry.trim();
  if (value === '*' || value.includes('*')) return 'wildcards are not accepted: list each site (https://shop.example)';
  if (ORIGIN_ENTRY.test(value) || HOST_ENTRY.test(value)) return null;
  return 'must be an origin such as https://shop.example (scheme, host, optional port; no path) or a bare host name';
}

/** An entry as browsers send it in `Origin`: lower case, no trailing slash, no default port. */
function normalizeAllowedOrigin(entry: string): string | null {
  const value = entry.trim().toLowerCase().replace(/\/$/, '');
  if (allowedOriginProblem(value) !== null) return null;
  const withScheme = /^https?:\/\//.test(value) ? value : `https://${value}`;
  try {
    return new URL(withScheme).origin;
  } catch {
    return null;
  }
}

/**
 * The origins whose pages may call this agent's public routes from a browser (normalised; entries
 * stored before they were checked and not valid are left out, so they never match).
 */
export function allowedOriginsOf(agent: Pick<AgentRecord, 'settings'>): string[] {
  const domains = agent.settings.interfaceConfig?.authorizedDomains;
  if (!Array.isArray(domains)) return [];
  const origins = new Set<string>();
  for (const entry of domains) {
    const origin = typeof entry === 'string' ? normalizeAllowedOrigin(entry) : null;
    if (origin !== null) origins.add(origin);
  }
  return [...origins];
}
