/**
 * GET with manual redirects: every hop is checked by the address policy, runs under the per-host
 * limit and its own deadline; loops and chains longer than `maxRedirects` fail cleanly.
 */
import { RagdeskError } from '../../src/errors.js';
import { parseHttpUrl, resolveAllowedAddress } from './address-policy.js';
import type { HostLimiter } from './host-limiter.js';
import { timeoutError, transportError } from './http-errors.js';
import { requestOnce, type HopResult, type ResponseValidators } from './http-request.js';
import type { MediaType, ResourceKind } from './media-types.js';
import type { ResolvedWebLoaderOptions } from './options.js';

export interface FetchContext {
  options: ResolvedWebLoaderOptions;
  limiter: HostLimiter;
}

export interface FetchedResource {
  url: string;
  finalUrl: string;
  status: number;
  mediaType: MediaType;
  body: Buffer;
  validators: ResponseValidators;
}

/** A conditional request the server answered 304 Not Modified. */
export interface NotModifiedResource {
  url: string;
  finalUrl: string;
  notModified: true;
  validators: ResponseValidators;
}

/** Called before a redirect is followed to `next` (from the URL that answered it); throws to refuse. */
export type RedirectCheck = (next: URL, from: string) => Promise<void>;

export interface FetchOptions {
  signal?: AbortSignal;
  /** Pages and files: robots.txt of each hop's origin (see `robotsOnRedirect`). */
  beforeRedirect?: RedirectCheck;
  /** Lower cap than the loader's `maxBytes` (robots.txt is read up to 512 KiB). */
  maxBytes?: number;
  /** Fewer redirects than the loader's `maxRedirects` (attachments of a query). */
  maxRedirects?: number;
  /** Validators of a previous response; see `fetchConditional`. */
  conditional?: { etag?: string | null; lastModified?: string | null };
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function fetchHop(context: FetchContext, url: URL, kind: ResourceKind, options: FetchOptions): Promise<HopResult> {
  const { timeoutMs, userAgent } = context.options;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = (): void => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const target = await untilAborted(resolveAllowedAddress(url, context.options), controller.signal);
    const maxBytes = Math.min(options.maxBytes ?? Infinity, context.options.maxBytes);
    const conditional = options.conditional ? { conditional: options.conditional } : {};
    return await requestOnce({ url, target, kind, userAgent, maxBytes, signal: controller.signal, ...conditional });
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (timedOut) throw timeoutError(url.href, timeoutMs);
    throw transportError(url.href, error);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

function withoutFragment(url: URL): URL {
  const copy = new URL(url.href);
  copy.hash = '';
  return copy;
}

/** Fetches `input`, following redirects. Throws a `RagdeskError` with a stable code on failure. */
export async function fetchResource(
  context: FetchContext,
  input: string,
  kind: ResourceKind,
  options: Omit<FetchOptions, 'conditional'> = {},
): Promise<FetchedResource> {
  return (await fetchConditional(context, input, kind, options)) as FetchedResource;
}

/**
 * `fetchResource` sending `options.conditional` as `If-None-Match` / `If-Modified-Since` on each
 * hop (a redirecting hop ignores them); a 304 answers `NotModifiedResource` without a body.
 */
export async function fetchConditional(
  context: FetchContext,
  input: string,
  kind: ResourceKind,
  options: FetchOptions = {},
): Promise<FetchedResource | NotModifiedResource> {
  let current = withoutFragment(parseHttpUrl(input));
  const chain = [current.href];
  for (;;) {
    options.signal?.throwIfAborted();
    const target = current;
    const result = await context.limiter.run(target.host, () => fetchHop(context, target, kind, options), options.signal);
    if (result.type === 'body') {
      const { status, mediaType, body, validators } = result;
      return { url: chain[0]!, finalUrl: current.href, status, mediaType, body, validators };
    }
    if (result.type === 'not_modified') return { url: chain[0]!, finalUrl: current.href, notModified: true, validators: result.validators };
    const next = withoutFragment(parseHttpUrl(result.location, current.href));
    if (chain.includes(next.href)) {
      throw new RagdeskError('upstream_failed', `redirect loop at ${next.href}`, {
        details: { url: chain[0], reason: 'redirect_loop', chain: [...chain, next.href] },
      });
    }
    const maxRedirects = Math.min(options.maxRedirects ?? Infinity, context.options.maxRedirects);
    if (chain.length > maxRedirects) {
      throw new RagdeskError('upstream_failed', `more than ${maxRedirects} redirects from ${chain[0]}`, {
        details: { url: chain[0], reason: 'too_many_redirects', chain: [...chain, next.href] },
      });
    }
    await options.beforeRedirect?.(next, current.href);
    chain.push(next.href);
    current = next;
  }
}
