import { describe, expect, it } from 'vitest';
import { ALLOW_ALL, parseRobots } from '../../../../adapters/web/robots.js';

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
