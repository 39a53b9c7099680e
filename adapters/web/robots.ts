/**
 * robots.txt (RFC 9309): the group for our product token (else `*`), longest matching rule wins,
 * `Allow` wins ties, `*` and `$` wildcards; `Sitemap:` lines are collected for discovery.
 */

export interface RobotsRules {
  /** True when the path and query of `url` may be crawled. */
  isAllowed(url: URL): boolean;
  /** Absolute sitemap URLs listed with `Sitemap:`. */
  sitemaps: string[];
}

interface Rule {
  allow: boolean;
  length: number;
  pattern: RegExp;
}

interface Group {
  agents: string[];
  rules: Rule[];
}

export const ALLOW_ALL: RobotsRules = { isAllowed: () => true, sitemaps: [] };

/** `ragdesk/0.1 (+https://…)` → `ragdesk`. */
function productToken(userAgent: string): string {
  return (/^[A-Za-z_-]+/.exec(userAgent.trim())?.[0] ?? userAgent).toLowerCase();
}

function compile(value: string): RegExp {
  const encoded = value.replace(/[^\x21-\x7e]/g, (character) => encodeURIComponent(character));
  const anchored = encoded.endsWith('$');
  const body = (anchored ? encoded.slice(0, -1) : encoded)
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}${anchored ? '$' : ''}`);
}

function parseGroups(text: string, base: string): { groups: Group[]; sitemaps: string[] } {
  const groups: Group[] = [];
  const sitemaps: string[] = [];
  let current: Group | undefined;
  let collectingAgents = false;
  for (const rawLine of text.split(/\r\n|\r|\n/)) {
    const line = rawLine.replace(/#.*$/, '').trim();
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'user-agent') {
      if (!collectingAgents || !current) {
        current = { agents: [], rules: [] };
        groups.push(current);
      }
      current.agents.push((value.split('/')[0] ?? '').trim().toLowerCase());
      collectingAgents = true;
    } else if (key === 'allow' || key === 'disallow') {
      collectingAgents = false;
      if (current && value) {
        current.rules.push({ allow: key === 'allow', length: value.length, pattern: compile(value) });
      }
    } else if (key === 'sitemap') {
      try {
        sitemaps.push(new URL(value, base).href);
      } catch {
        // not a URL: ignored
      }
    }
  }
  return { groups, sitemaps };
}

export function parseRobots(text: string, userAgent: string, robotsUrl: string): RobotsRules {
  const { groups, sitemaps } = parseGroups(text, robotsUrl);
  const token = productToken(userAgent);
  const specific = groups.filter((group) => group.agents.includes(token));
  const chosen = specific.length > 0 ? specific : groups.filter((group) => group.agents.includes('*'));
  const rules = chosen.flatMap((group) => group.rules);
  return {
    sitemaps,
    isAllowed(url) {
      if (url.pathname === '/robots.txt') return true;
      const path = `${url.pathname}${url.search}`;
      let best: Rule | undefined;
      for (const rule of rules) {
        if (!rule.pattern.test(path)) continue;
        if (!best || rule.length > best.length || (rule.length === best.length && rule.allow)) best = rule;
      }
      return best?.allow ?? true;
    },
  };
}
