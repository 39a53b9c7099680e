import { RagdeskError } from '../../src/index.js';
import type { Route } from './operation.js';

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: string[] }
  | { kind: 'not_found' };

interface CompiledRoute {
  route: Route;
  segments: readonly (string | { param: string })[];
  /** Literal segments win over parameters: `/datastores/upsert/{id}` before `/datastores/{id}/query`. */
  literals: number;
}

/** A small segment router: exact literal segments, `{name}` parameters, no wildcards. */
export class Router {
  private readonly compiled: CompiledRoute[];

  constructor(routes: readonly Route[]) {
    this.compiled = routes.map((route) => {
      const segments = route.path
        .split('/')
        .slice(1)
        .map((part) => {
          const param = /^\{(\w+)\}$/.exec(part)?.[1];
          return param ? { param } : part;
        });
      return { route, segments, literals: segments.filter((part) => typeof part === 'string').length };
    });
    this.compiled.sort((a, b) => b.literals - a.literals);
  }

  /** Methods of the routes whose path matches (empty when none does), for CORS preflights. */
  methodsFor(path: string): string[] {
    const parts = splitPath(path);
    if (parts === null) return [];
    const methods = new Set<string>();
    for (const candidate of this.compiled) {
      if (
        candidate.segments.length === parts.length &&
        candidate.segments.every((segment, i) => typeof segment !== 'string' || segment === parts[i])
      ) {
        methods.add(candidate.route.method);
      }
    }
    return [...methods].sort();
  }

  /** `path` is relative to the base path and still percent-encoded. */
  match(method: string, path: string): RouteMatch {
    const parts = splitPath(path);
    if (parts === null) return { kind: 'not_found' };
    const allowed = new Set<string>();
    for (const candidate of this.compiled) {
      const params = matchSegments(candidate.segments, parts);
      if (!params) continue;
      if (candidate.route.method === method) return { kind: 'found', route: candidate.route, params };
      allowed.add(candidate.route.method);
    }
    return allowed.size > 0 ? { kind: 'method_not_allowed', allowed: [...allowed].sort() } : { kind: 'not_found' };
  }
}

/** `/a/b/` → `['a', 'b']`; empty inner segments (`//`) match nothing. */
function splitPath(path: string): string[] | null {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  if (trimmed === '' || trimmed === '/') return [];
  const parts = trimmed.split('/').slice(1);
  return parts.some((part) => part === '') ? null : parts;
}

function matchSegments(segments: CompiledRoute['segments'], parts: readonly string[]): Record<string, string> | null {
  if (segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    const part = parts[index]!;
    if (typeof segment === 'string') {
      if (segment !== part) return null;
    } else {
      params[segment.param] = decodeSegment(part);
    }
  }
  return params;
}

function decodeSegment(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new RagdeskError('invalid_request', 'Malformed percent-encoding in the path', {
      details: { issues: [{ path: 'path', message: 'malformed percent-encoding' }] },
    });
  }
}
