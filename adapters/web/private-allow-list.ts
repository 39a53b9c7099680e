/**
 * `allowPrivateUrls`: the non-public hosts and address blocks a web loader may reach. Everything
 * else non-public stays refused, so allowing one intranet host does not open the whole network
 * (which `allowPrivateNetwork` does).
 */
import { RagdeskError } from '../../src/errors.js';
import { cidrMatcher } from './ip-ranges.js';

/** Decides whether a non-public `address`, resolved from `hostname`, is allowed. */
export type PrivateAllowList = (address: string, hostname: string) => boolean;

/** Host names: letters, digits, hyphens and dots, optionally led by `*.` (any sub-domain). */
const HOST_NAME = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/;

function hostMatcher(entry: string): ((hostname: string) => boolean) | undefined {
  const name = entry.toLowerCase().replace(/\.$/, '');
  if (!HOST_NAME.test(name)) return undefined;
  if (name.startsWith('*.')) {
    const suffix = name.slice(1);
    return (hostname) => hostname.toLowerCase().replace(/\.$/, '').endsWith(suffix);
  }
  return (hostname) => hostname.toLowerCase().replace(/\.$/, '') === name;
}

/**
 * Parses the entries: CIDR blocks and single addresses (`10.0.0.0/8`, `127.0.0.1`, `::1`) allow
 * the addresses in them whatever name led there; host names (`wiki.internal`, `*.corp.example`,
 * `localhost`) allow whatever address their name resolves to. A bad entry is an `invalid_request`
 * naming it.
 */
export function privateAllowList(entries: readonly string[] | undefined, field = 'allowPrivateUrls'): PrivateAllowList | undefined {
  if (entries === undefined || entries.length === 0) return undefined;
  const addressTests: Array<(address: string) => boolean> = [];
  const hostTests: Array<(hostname: string) => boolean> = [];
  for (const [index, raw] of entries.entries()) {
    const entry = typeof raw === 'string' ? raw.trim() : '';
    const cidr = entry ? cidrMatcher(entry) : undefined;
    const host = cidr || !entry ? undefined : hostMatcher(entry);
    if (cidr) addressTests.push(cidr);
    else if (host) hostTests.push(host);
    else {
      throw new RagdeskError(
        'invalid_request',
        `${field}[${index}] is not a CIDR block, an IP address or a host name: ${JSON.stringify(raw)}`,
        {
          details: {
            issues: [
              { path: `${field}.${index}`, message: 'must be a CIDR block (10.0.0.0/8), an IP address or a host name (*.corp.example)' },
            ],
          },
        },
      );
    }
  }
  return (address, hostname) => hostTests.some((test) => test(hostname)) || addressTests.some((test) => test(address));
}

/** Splits the comma-separated form (`ragdesk serve --allow-private-urls 10.0.0.0/8,wiki.internal`). */
export function splitAllowList(text: string): string[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}
