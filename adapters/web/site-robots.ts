/** robots.txt per origin for a crawl: fetched once, with RFC 9309's answers to failures. */
import { RagdeskError } from '../../src/errors.js';
import { fetchResource, type FetchContext } from './fetch-resource.js';
import { decodeText } from './media-types.js';
import { ALLOW_ALL, parseRobots, type RobotsRules } from './robots.js';

interface SiteRobots extends RobotsRules {
  /** Set when robots.txt was unreachable, so nothing is allowed; the error says why. */
  unreachable?: RagdeskError;
}

const MAX_ROBOTS_BYTES = 512 * 1024;

async function loadRobots(context: FetchContext, origin: string, signal: AbortSignal): Promise<SiteRobots> {
  const robotsUrl = `${origin}/robots.txt`;
  try {
    const fetched = await fetchResource(context, robotsUrl, 'robots', { signal, maxBytes: MAX_ROBOTS_BYTES });
    const text = decodeText(fetched.body, fetched.mediaType.charset, false);
    return parseRobots(text, context.options.userAgent, fetched.finalUrl);
  } catch (error) {
    signal.throwIfAborted();
    // 5xx, 429, timeouts and network errors: "unreachable", crawl nothing for now (retryable).
    if (RagdeskError.isInstance(error) && error.retryable) {
      return { isAllowed: () => false, verdict: () => 'disallowed', sitemaps: [], unreachable: error };
    }
    // 4xx, odd bodies, refused addresses: "unavailable", crawl as if there were no robots.txt;
    // pages on a refused address then fail on their own with `forbidden`.
    return ALLOW_ALL;
  }
}

export type RobotsLookup = (url: URL) => Promise<SiteRobots>;

export function robotsLookup(context: FetchContext, signal: AbortSignal): RobotsLookup {
  const cache = new Map<string, Promise<SiteRobots>>();
  return (url) => {
    let rules = cache.get(url.origin);
    if (!rules) {
      rules = loadRobots(context, url.origin, signal);
      cache.set(url.origin, rules);
    }
    return rules;
  };
}
