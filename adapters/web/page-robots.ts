/**
 * robots.txt for a single page (`loadPage`), by the same rule as a site crawl (RFC 9309): a path
 * the site disallows for our user agent is not fetched, and while robots.txt is unreachable (5xx,
 * timeouts) nothing is; a missing robots.txt (4xx) allows everything.
 */
import { RagdeskError } from '../../src/errors.js';
import { parseHttpUrl } from './address-policy.js';
import type { FetchContext } from './fetch-resource.js';
import { robotsLookup } from './site-robots.js';

export async function assertRobotsAllow(context: FetchContext, url: string, signal: AbortSignal | undefined): Promise<void> {
  const target = parseHttpUrl(url);
  const rules = await robotsLookup(context, signal ?? new AbortController().signal)(target);
  if (rules.unreachable) throw rules.unreachable;
  if (!rules.isAllowed(target)) {
    throw new RagdeskError('forbidden', `robots.txt of ${target.origin} disallows ${target.href.slice(0, 300)}`, {
      details: { reason: 'robots_txt', url: target.href.slice(0, 2000) },
    });
  }
}
