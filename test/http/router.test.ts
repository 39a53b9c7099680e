import { describe, expect, it } from 'vitest';
import type { Route } from '../../adapters/http/operation.js';
import { Router } from '../../adapters/http/router.js';

/** The router reads method and path only; the rest of a Route is irrelevant here. */
const route = (method: Route['method'], path: string): Route =>
  ({
    method,
    path,
    operationId: `${method} ${path}`,
    summary: '',
    tag: 'meta',
    auth: 'none',
    response: 'raw',
    errors: [],
  }) as unknown as Route;

const ROUTES = [
  route('GET', '/datastores/{id}'),
  route('PATCH', '/datastores/{id}'),
  route('DELETE', '/datastores/{id}'),
  route('POST', '/datastores/{id}/query'),
  route('POST', '/datastores/upsert/{id}'),
  route('GET', '/datastores/{id}/datasources/{sourceId}'),
];
const router = new Router(ROUTES);
const found = (method: string, path: string) => {
  const match = router.match(method, path);
  return match.kind === 'found' ? { id: match.route.operationId, params: match.params } : match;
};

describe('Router', () => {
  it('matches literal segments and binds {name} parameters, percent-decoded', () => {
    expect(found('GET', '/datastores/ds1')).toEqual({ id: 'GET /datastores/{id}', params: { id: 'ds1' } });
    expect(found('GET', '/datastores/a%20b%2Fc/datasources/s%C3%A9')).toEqual({
      id: 'GET /datastores/{id}/datasources/{sourceId}',
      params: { id: 'a b/c', sourceId: 'sé' },
    });
  });

  it('prefers the route with more literal segments, whatever the order routes were given', () => {
    const routes = [route('POST', '/items/{id}/{action}'), route('POST', '/items/special/{id}')];
    for (const order of [routes, [...routes].reverse()]) {
      const match = new Router(order).match('POST', '/items/special/7');
      expect(match.kind === 'found' && match.route.path).toBe('/items/special/{id}');
    }
    expect(found('POST', '/datastores/upsert/x')).toEqual({ id: 'POST /datastores/upsert/{id}', params: { id: 'x' } });
  });

  it('answers method_not_allowed with the sorted allowed methods when only the method differs', () => {
    expect(router.match('POST', '/datastores/ds1')).toEqual({ kind: 'method_not_allowed', allowed: ['DELETE', 'GET', 'PATCH'] });
    expect(router.match('GET', '/datastores/ds1/query')).toEqual({ kind: 'method_not_allowed', allowed: ['POST'] });
  });

  it('answers not_found for unknown paths, other segment counts and empty inner segments', () => {
    for (const path of ['/agents', '/datastores', '/datastores/a/b/c/d', '/datastores//query', '//']) {
      expect(router.match('GET', path), path).toEqual({ kind: 'not_found' });
    }
  });

  it('ignores one trailing slash', () => {
    expect(found('GET', '/datastores/ds1/')).toEqual({ id: 'GET /datastores/{id}', params: { id: 'ds1' } });
  });

  it('refuses malformed percent-encoding in a parameter as invalid_request', () => {
    expect(() => router.match('GET', '/datastores/%E0%A4%A')).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });

  it('methodsFor lists the methods of every route whose path matches, for preflights', () => {
    expect(router.methodsFor('/datastores/x')).toEqual(['DELETE', 'GET', 'PATCH']);
    expect(router.methodsFor('/datastores/upsert/x')).toEqual(['POST']);
    expect(router.methodsFor('/datastores/x/query/')).toEqual(['POST']);
    expect(router.methodsFor('/nothing/here')).toEqual([]);
    expect(router.methodsFor('/datastores//x')).toEqual([]);
  });
});
