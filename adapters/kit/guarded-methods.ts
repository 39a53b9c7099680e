/**
 * A store port's methods as an adapter writes them: a method may return its result plainly (a
 * synchronous driver such as better-sqlite3) or a promise; `guardedMethods` makes every one a promise.
 */
export type Implementation<P> = {
  [K in keyof P]: P[K] extends ((...args: infer A) => Promise<infer R>) | undefined ? (...args: A) => R | Promise<R> : P[K];
};

/** What an adapter does around every call of its store methods. */
export interface MethodGuard {
  /** Runs before each method; throws to refuse the call (a closed store throws `closed`). */
  before(): void;
  /** The error a caller sees for a driver error thrown by `action` (the method's name). */
  translate(error: unknown, action: string): unknown;
}

/**
 * The methods of `implementation` with the adapter's cross-cutting concerns applied once, instead
 * of one wrapping line per method: each call is refused by `guard.before` (after close, say), its
 * synchronous result becomes a promise, and a thrown or rejected error goes through
 * `guard.translate`. A paging read (`iterateChunks`, `iterateChunkVectors`: they return async
 * iterables, not promises) is guarded when its first page is asked for, and each of its pages
 * runs its own guarded read. Properties that are not functions are copied unchanged, and `close`
 * is never guarded (it is idempotent, also after close).
 */
export function guardedMethods<P extends object>(implementation: Implementation<P>, guard: MethodGuard): P {
  const guarded: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(implementation as Record<string, unknown>)) {
    if (typeof value !== 'function' || name === 'close') guarded[name] = value;
    else guarded[name] = PAGING.has(name) ? guardedPaging(name, value as Method, guard) : guardedMethod(name, value as Method, guard);
  }
  return guarded as P;
}

type Method = (...args: unknown[]) => unknown;

/** The store ports' methods that return an async iterable of pages. */
const PAGING = new Set(['iterateChunks', 'iterateChunkVectors']);

function guardedPaging(name: string, method: Method, guard: MethodGuard): Method {
  return async function* (...args: unknown[]) {
    try {
      guard.before();
    } catch (error) {
      throw guard.translate(error, name);
    }
    yield* method(...args) as AsyncIterable<unknown>;
  };
}

function guardedMethod(name: string, method: Method, guard: MethodGuard): Method {
  return (...args: unknown[]) => {
    let result: unknown;
    try {
      guard.before();
      result = method(...args);
    } catch (error) {
      return Promise.reject(guard.translate(error, name));
    }
    return Promise.resolve(result).catch((error: unknown) => {
      throw guard.translate(error, name);
    });
  };
}
