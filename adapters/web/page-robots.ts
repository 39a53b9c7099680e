/**
 * robots.txt for a single page or file (`loadPage`, `fetchFile`), by the same rule as a site crawl
 * (RFC 9309): a path the site disallows for our user agent is not fetched, and while robots.txt is
 * unreachable (5xx, timeouts) nothing is; a missing robots.txt (4xx) allows everything. The rule
 * holds on every redirect hop too, against the robots.txt of the hop's own origin: a redirect to a
 * path robots.txt forbids is refused before that path is requested.
 */
import { RagdeskError } from '../../src/errors.js';
import { parseHttpUrl } from './address-policy.js';
import type { FetchContext, RedirectCheck } from './fetch-resource.js';
import { robotsLookup, type RobotsLookup } from './site-robots.js';

/** Throws the `forbidden` (or unreachable robots.txt) error when `target` may not be fetched. */
async function assertAllowedBy(lookup: RobotsLookup, target: URL, redirectedFrom?: string): Promise<void> {
  const rules = await lookup(target);
  if (rules.unreachable) throw rules.unreachable;
  const verdict = rules.verdict(target);
  if (verdict === 'allowed') return;
  const via = redirectedFrom ? ` (a redirect from ${redirectedFrom.slice(0, 300)})` : '';
  const why = verdict === 'too_complex' ? 'has rules too costly to match against' : 'disallows';
  throw new RagdeskError('forbidden', `robots.txt of ${target.origin} ${why} ${target.href.slice(0, 300)}${via}`, {
    details: {
      reason: verdict === 'too_complex' ? 'robots_txt_too_complex' : 'robots_txt',
      url: target.href.slice(0, 2000),
      ...(redirectedFrom ? { redirectedFrom: redirectedFrom.slice(0, 2000) } : {}),
    },
  });
}

/** The redirect check of `fetchResource` that applies robots.txt to every hop. */
export function robotsOnRedirect(lookup: RobotsLookup): RedirectCheck {
  return (next, from) => assertAllowedBy(lookup, next, from);
}

/** Checks `url` and returns the lookup (its robots.txt files cached) for the redirects that follow. */
export async function assertRobotsAllow(context: FetchContext, url: string, signal: AbortSignal | undefined): Promise<RobotsLookup> {
  const lookup = robotsLookup(context, signal ?? new AbortController().signal);
  await assertAllowedBy(lookup, parseHttpUrl(url));
  return lookup;
}
