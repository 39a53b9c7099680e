/**
 * robots.txt (RFC 9309): the group for our product token (else `*`), longest matching rule wins,
 * `Allow` wins ties, `*` and `$` wildcards; `Sitemap:` lines are collected for discovery. Rules are
 * matched by the linear wildcard matcher (a rule of many `*`s built as a backtracking regular
 * expression held the event loop for minutes on a path of 52 characters), and one URL's check
 * against all rules stops after `ROBOTS_STEP_LIMIT` steps: a file of tens of thousands of wildcard
 * rules cannot hold the thread either. An undecided URL is not fetched.
 */
import { compileWildcard, matchWildcard, type StepCounter, type WildcardPattern } from './wildcard-match.js';

/** `too_complex`: the rules could not be matched against the URL within the step limit. */
export type RobotsVerdict = 'allowed' | 'disallowed' | 'too_complex';

export interface RobotsRules {
  /** True when the path and query of `url` may be crawled (`verdict` is `allowed`). */
  isAllowed(url: URL): boolean;
  /** The answer for `url`; `counter` (for tests) receives the steps spent. */
  verdict(url: URL, counter?: StepCounter): RobotsVerdict;
  /** Absolute sitemap URLs listed with `Sitemap:`. */
  sitemaps: string[];
}

/**
 * Character comparisons allowed for one URL against all rules of the chosen groups: 5-35 ms
 * of matching, while real robots.txt files (thousands of literal rules) take a few thousand steps.
 */
export const ROBOTS_STEP_LIMIT = 1_000_000;

interface Rule {
  allow: boolean;
  length: number;
  pattern: WildcardPattern;
}

interface Group {
  agents: string[];
  rules: Rule[];
}

export const ALLOW_ALL: RobotsRules = { isAllowed: () => true, verdict: () => 'allowed', sitemaps: [] };

/** `ragdesk/0.1 (+https://…)` → `ragdesk`. */
function productToken(userAgent: string): string {
  return (/^[A-Za-z_-]+/.exec(userAgent.trim())?.[0] ?? userAgent).toLowerCase();
}

/**
 * Non-ASCII and control characters are compared percent-encoded, as URL paths carry them (whole
 * code points: a lone surrogate half would make `encodeURIComponent` throw).
 */
function compile(value: string): WildcardPattern {
  const encoded = value.replace(/[^\x21-\x7e]/gu, (character) => encodeURIComponent(character));
  const anchored = encoded.endsWith('$');
  return compileWildcard(anchored ? encoded.slice(0, -1) : encoded, { start: true, end: anchored });
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

export function parseRobots(text: string, userAgent: string, robotsUrl: string, stepLimit = ROBOTS_STEP_LIMIT): RobotsRules {
  const { groups, sitemaps } = parseGroups(text, robotsUrl);
  const token = productToken(userAgent);
  const specific = groups.filter((group) => group.agents.includes(token));
  const chosen = specific.length > 0 ? specific : groups.filter((group) => group.agents.includes('*'));
  const rules = chosen.flatMap((group) => group.rules);
  const verdict = (url: URL, counter: StepCounter = { steps: 0, limit: stepLimit }): RobotsVerdict => {
    if (url.pathname === '/robots.txt') return 'allowed';
    const path = `${url.pathname}${url.search}`;
    let best: Rule | undefined;
    for (const rule of rules) {
      // A rule no longer than the best so far cannot change the answer (Allow only wins ties).
      if (best && (rule.length < best.length || (rule.length === best.length && (best.allow || !rule.allow)))) continue;
      const matched = matchWildcard(rule.pattern, path, counter);
      if (matched === undefined) return 'too_complex';
      if (matched) best = rule;
    }
    return best?.allow === false ? 'disallowed' : 'allowed';
  };
  return { sitemaps, verdict, isAllowed: (url) => verdict(url) === 'allowed' };
}
