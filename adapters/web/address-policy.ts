/**
 * SSRF guard: which URLs the loader may request. Checked before the first request and again on
 * every redirect hop; the request then connects to the exact address checked here (see
 * `http-request.ts`), so a DNS answer that changes between check and connect cannot slip through.
 */
import { isIP } from 'node:net';
import { RagdeskError } from '../../src/errors.js';
import { blockedRange } from './ip-ranges.js';
import type { ResolvedAddress, ResolvedWebLoaderOptions } from './options.js';

export type AddressPolicy = Pick<ResolvedWebLoaderOptions, 'allowPrivateNetwork' | 'allowPrivateUrls' | 'lookup' | 'isAllowedAddress'>;

/** Parses `input` as an absolute http(s) URL; anything else is an `invalid_request`. */
export function parseHttpUrl(input: string | URL, base?: string): URL {
  let url: URL;
  try {
    url = new URL(input, base);
  } catch {
    throw new RagdeskError('invalid_request', `not a valid URL: ${String(input).slice(0, 200)}`, {
      details: { issues: [{ path: 'url', message: 'must be an absolute http(s) URL' }] },
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RagdeskError('invalid_request', `only http and https URLs can be loaded, not ${url.protocol}`, {
      details: { issues: [{ path: 'url', message: 'scheme must be http or https' }], scheme: url.protocol },
    });
  }
  if (url.username || url.password) {
    throw new RagdeskError('invalid_request', 'URLs with credentials are not loaded', {
      details: { issues: [{ path: 'url', message: 'must not contain user:password@' }] },
    });
  }
  return url;
}

/** The host name without IPv6 brackets. */
function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** The option that would let the refused URL through, named in the error for whoever runs the server. */
const ALLOW_HINT = 'to allow it, list the host or its address block in allowPrivateUrls (ragdesk serve --allow-private-urls)';

function refuse(url: URL, address: string, range: string): never {
  throw new RagdeskError('forbidden', `${url.host} resolves to a non-public address (${range}); refused: ${ALLOW_HINT}`, {
    details: { reason: 'private_address', address, range, host: url.host, option: 'allowPrivateUrls' },
  });
}

async function resolve(hostname: string, policy: AddressPolicy): Promise<ResolvedAddress[]> {
  const family = isIP(hostname);
  if (family) return [{ address: hostname, family: family === 6 ? 6 : 4 }];
  try {
    const answers = await policy.lookup(hostname);
    if (answers.length > 0) return answers;
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new RagdeskError('upstream_failed', `could not resolve ${hostname}${code ? ` (${code})` : ''}`, {
      cause: error,
      retryable: code === 'EAI_AGAIN' || code === 'ETIMEOUT',
      details: { host: hostname, reason: 'dns' },
    });
  }
  throw new RagdeskError('upstream_failed', `could not resolve ${hostname}`, { details: { host: hostname, reason: 'dns' } });
}

/**
 * Resolves the URL's host and returns the address to connect to. Every resolved address must be
 * allowed, not just the one used: a name that also points inside the network is refused.
 */
export async function resolveAllowedAddress(url: URL, policy: AddressPolicy): Promise<ResolvedAddress> {
  const hostname = bareHostname(url);
  const addresses = await resolve(hostname, policy);
  if (!policy.allowPrivateNetwork) {
    for (const { address } of addresses) {
      if (policy.allowPrivateUrls?.(address, hostname)) continue;
      if (policy.isAllowedAddress) {
        if (!policy.isAllowedAddress(address, hostname)) refuse(url, address, 'not_allowed');
      } else {
        const range = blockedRange(address);
        if (range) refuse(url, address, range);
      }
    }
  }
  // IPv4 first: hosts often publish AAAA records on machines without IPv6 routes.
  return addresses.find((entry) => entry.family === 4) ?? addresses[0]!;
}
