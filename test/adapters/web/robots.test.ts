import { describe, expect, it } from 'vitest';
import { ALLOW_ALL, parseRobots, ROBOTS_STEP_LIMIT } from '../../../adapters/web/robots.js';
import type { StepCounter } from '../../../adapters/web/wildcard-match.js';

const ROBOTS_URL = 'https://site.test/robots.txt';
const allowed = (robots: string, path: string, userAgent = 'ragdesk/0.1 (+https://example.test)'): boolean =>
  parseRobots(robots, userAgent, ROBOTS_URL).isAllowed(new URL(path, 'https://site.test'));

describe('parseRobots', () => {
  it('uses the group naming our product token (case-insensitive), else `*`, never both', () => {
    const robots = 'User-agent: *\nDisallow: /star\n\nUser-agent: RagDesk\nDisallow: /ours\n';
    expect(allowed(robots, '/ours/x')).toBe(false);
    expect(allowed(robots, '/star/x')).toBe(true);
    expect(allowed(robots, '/ours/x', 'otherbot/2')).toBe(true);
    expect(allowed(robots, '/star/x', 'otherbot/2')).toBe(false);
  });

  it('merges every group that names us, and consecutive User-agent lines share one group', () => {
    const robots = 'User-agent: a\nUser-agent: ragdesk\nDisallow: /one\n\nUser-agent: ragdesk\nDisallow: /two\n';
    expect(allowed(robots, '/one')).toBe(false);
    expect(allowed(robots, '/two')).toBe(false);
    expect(allowed(robots, '/three')).toBe(true);
    expect(allowed(robots, '/one', 'a')).toBe(false);
    expect(allowed(robots, '/two', 'a')).toBe(true);
  });

  it('the longest matching rule wins, and Allow wins a tie', () => {
    const robots = 'User-agent: *\nDisallow: /docs\nAllow: /docs/public\nDisallow: /docs/public/secret\nAllow: /tie\nDisallow: /tie\n';
    expect(allowed(robots, '/docs/x')).toBe(false);
    expect(allowed(robots, '/docs/public/a')).toBe(true);
    expect(allowed(robots, '/docs/public/secret/a')).toBe(false);
    expect(allowed(robots, '/tie')).toBe(true);
  });

  it('`*` matches any run, `$` anchors the end, the query string is part of the path', () => {
    const robots = 'User-agent: *\nDisallow: /*.pdf$\nDisallow: /search?*q=\nDisallow: /a*b/c\n';
    expect(allowed(robots, '/files/x.pdf')).toBe(false);
    expect(allowed(robots, '/files/x.pdf?v=1')).toBe(true);
    expect(allowed(robots, '/files/x.pdfs')).toBe(true);
    expect(allowed(robots, '/search?lang=en&q=tides')).toBe(false);
    expect(allowed(robots, '/search?lang=en')).toBe(true);
    expect(allowed(robots, '/a-long-b/c/d')).toBe(false);
    // Other regular-expression characters are literal.
    expect(allowed('User-agent: *\nDisallow: /a.c\n', '/abc')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /a.c\n', '/a.c')).toBe(false);
  });

  it('an empty Disallow allows all; comments, blank and unknown lines, rules before any group are ignored', () => {
    expect(allowed('User-agent: *\nDisallow:\n', '/anything')).toBe(true);
    expect(allowed('Disallow: /early\nUser-agent: *\nCrawl-delay: 5\n# Disallow: /commented\nDisallow: /x # trailing\n', '/early')).toBe(
      true,
    );
    expect(allowed('User-agent: *\r\nDisallow: /x # trailing\r\n', '/x/1')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /commented\n', '/commented')).toBe(false);
    expect(allowed('', '/')).toBe(true);
  });

  it('compares non-ASCII rules percent-encoded, as URL paths are', () => {
    expect(allowed('User-agent: *\nDisallow: /café\n', '/café/menu')).toBe(false);
  });

  it('compares characters outside the Basic Multilingual Plane percent-encoded too, instead of ignoring the file', () => {
    expect(allowed('User-agent: *\nDisallow: /😀\nDisallow: /private\n', '/private/x')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /😀\n', '/😀/x')).toBe(false);
  });

  it('matches rules in linear steps: many `*`s on long paths, a 12-`*` rule, a file of wildcard rules', () => {
    const steps = (robots: string, path: string): { verdict: string; steps: number } => {
      const counter: StepCounter = { steps: 0, limit: ROBOTS_STEP_LIMIT };
      const verdict = parseRobots(robots, 'ragdesk', ROBOTS_URL).verdict(new URL(path, 'https://site.test'), counter);
      return { verdict, steps: counter.steps };
    };
    const rule = '/*a*a*a*a*a*a*a*a*b';
    for (const length of [52, 5_000]) {
      const path = `/${'a'.repeat(length)}`;
      const result = steps(`User-agent: *\nDisallow: ${rule}\n`, path);
      expect(result.verdict).toBe('allowed');
      expect(result.steps).toBeLessThanOrEqual(2 * path.length + rule.length);
    }
    const twelve = `/${'*a'.repeat(12)}*b`;
    const forty = `/${'a'.repeat(39)}`;
    const result = steps(`User-agent: *\nDisallow: ${twelve}\n`, forty);
    expect(result).toEqual({ verdict: 'allowed', steps: expect.any(Number) });
    expect(result.steps).toBeLessThanOrEqual(2 * forty.length + twelve.length);
    // 40,000 distinct rules that each scan the whole path: the limit ends the check, and the URL
    // is not allowed.
    const many = Array.from({ length: 40_000 }, (_, i) => `Disallow: /*a*${i}x`).join('\n');
    const hostile = steps(`User-agent: *\n${many}\n`, `/${'a'.repeat(2_000)}`);
    expect(hostile.verdict).toBe('too_complex');
    expect(hostile.steps).toBeLessThanOrEqual(ROBOTS_STEP_LIMIT + 2 * 2_001 + 20);
    expect(
      parseRobots(`User-agent: *\n${many}\n`, 'ragdesk', ROBOTS_URL).isAllowed(new URL('https://site.test/' + 'a'.repeat(2_000))),
    ).toBe(false);
  });

  it('skips rules that cannot beat the longest match so far', () => {
    const counter: StepCounter = { steps: 0, limit: ROBOTS_STEP_LIMIT };
    const robots = parseRobots(`User-agent: *\nAllow: /${'p'.repeat(50)}\n${'Disallow: /*q\n'.repeat(1_000)}`, 'ragdesk', ROBOTS_URL);
    expect(robots.verdict(new URL(`https://site.test/${'p'.repeat(500)}`), counter)).toBe('allowed');
    expect(counter.steps).toBeLessThan(100);
  });

  it('never disallows robots.txt itself', () => {
    expect(allowed('User-agent: *\nDisallow: /\n', '/robots.txt')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /\n', '/')).toBe(false);
  });

  it('collects Sitemap lines from anywhere, resolved against the robots.txt URL, skipping non-URLs', () => {
    const robots = 'Sitemap: /a.xml\nUser-agent: other\nDisallow: /\nSitemap: https://cdn.test/b.xml # comment\nSitemap: http://[bad\n';
    expect(parseRobots(robots, 'ragdesk', ROBOTS_URL).sitemaps).toEqual(['https://site.test/a.xml', 'https://cdn.test/b.xml']);
  });

  it('ALLOW_ALL allows everything and lists no sitemap', () => {
    expect(ALLOW_ALL.isAllowed(new URL('https://site.test/private'))).toBe(true);
    expect(ALLOW_ALL.sitemaps).toEqual([]);
  });
});
