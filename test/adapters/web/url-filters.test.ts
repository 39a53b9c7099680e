import { describe, expect, it } from 'vitest';
import { normalizeUrl, urlFilter } from '../../../adapters/web/url-filters.js';

describe('normalizeUrl', () => {
  it('drops the fragment and default port, lower-cases the host, keeps http(s) only', () => {
    expect(normalizeUrl('HTTPS://Example.COM:443/a/b?x=1#part')).toBe('https://example.com/a/b?x=1');
    expect(normalizeUrl('http://example.com:8080/')).toBe('http://example.com:8080/');
    expect(normalizeUrl('ftp://example.com/file')).toBeUndefined();
    expect(normalizeUrl('mailto:someone@example.com')).toBeUndefined();
    expect(normalizeUrl('not a url')).toBeUndefined();
  });
});

describe('urlFilter', () => {
  const url = (path: string) => `https://site.test${path}`;

  it('passes everything without patterns', () => {
    expect(urlFilter()(url('/anything'))).toBe(true);
  });

  it('matches a glob against path and query, `*` spanning slashes, the whole pattern anchored', () => {
    const docs = urlFilter(['/docs/*']);
    expect(docs(url('/docs/a/b'))).toBe(true);
    expect(docs(url('/blog/docs/a'))).toBe(false);
    expect(urlFilter(['*.html'])(url('/a/b.html'))).toBe(true);
    expect(urlFilter(['*.html'])(url('/a/b.html?x=1'))).toBe(false);
    expect(urlFilter(['/search?q=*'])(url('/search?q=tides'))).toBe(true);
    // Regular-expression characters in a glob are literal.
    expect(urlFilter(['/a.c'])(url('/abc'))).toBe(false);
  });

  it('matches a glob with a scheme against the whole URL', () => {
    const filter = urlFilter(['https://site.test/docs/*']);
    expect(filter(url('/docs/x'))).toBe(true);
    expect(filter('http://site.test/docs/x')).toBe(false);
  });

  it('reads /source/ made of literals, .*, ^ and $ as the search it always was', () => {
    expect(urlFilter(['/about/'])(url('/team/about-us'))).toBe(true);
    expect(urlFilter(['/about/'])(url('/team'))).toBe(false);
    expect(urlFilter(['/\\.pdf$/'])(url('/a/b.pdf'))).toBe(true);
    expect(urlFilter(['/\\.pdf$/'])(url('/a/b.pdf?x'))).toBe(false);
    expect(urlFilter(['/^https:\\/\\/site\\.test\\/docs\\/.*\\.html$/'])(url('/docs/a/b.html'))).toBe(true);
    expect(urlFilter(['/^https:\\/\\/site\\.test\\/docs\\/.*\\.html$/'])(url('/blog/docs/b.html'))).toBe(false);
    // Two characters are not a regular expression but a glob: `//` never matches a path.
    expect(urlFilter(['//'])(url('/a'))).toBe(false);
  });

  it('refuses any other regular expression, naming the field and the glob alternative', () => {
    for (const pattern of ['/(a+)+$/', '/\\/v[0-9]+\\//', '/docs|blog/', '/a.c/', '/\\d+/', '/ab?/', '/x{2}/']) {
      expect(() => urlFilter([pattern]), pattern).toThrow(
        expect.objectContaining({
          code: 'invalid_request',
          details: { issues: [{ path: 'include.0', message: expect.stringContaining('use a glob where * matches any characters') }] },
        }),
      );
    }
  });

  it('matches in linear steps: a glob of many `*`s against long links, 100 patterns each way', () => {
    const glob = '*a*a*a*a*a*a*a*a*b';
    for (const length of [45, 20_000]) {
      const link = url(`/${'a'.repeat(length)}`);
      const path = `/${'a'.repeat(length)}`;
      const counter = { steps: 0, limit: Number.MAX_SAFE_INTEGER };
      expect(urlFilter([glob])(link, counter)).toBe(false);
      expect(counter.steps).toBeLessThanOrEqual(2 * path.length + glob.length);
    }
    const many = Array.from({ length: 100 }, (_, i) => `*a*a*a*${i}*b`);
    const counter = { steps: 0, limit: Number.MAX_SAFE_INTEGER };
    const link = url(`/${'a'.repeat(2_000)}`);
    expect(urlFilter(many, many)(link, counter)).toBe(false);
    expect(counter.steps).toBeLessThanOrEqual(100 * (2 * 2_001 + 20));
  });

  it('refuses a URL whose check runs past the step limit', () => {
    const many = Array.from({ length: 100 }, (_, i) => `*a*${i}*`);
    const link = url(`/${'a'.repeat(2_000)}`);
    expect(urlFilter([], many)(link)).toBe(true);
    expect(urlFilter([], many, 10_000)(link)).toBe(false);
    expect(urlFilter(many, [], 10_000)(link)).toBe(false);
  });

  it('needs one include to match and no exclude to match', () => {
    const filter = urlFilter(['/docs/*', '/guides/*'], ['*/private/*', '*.pdf']);
    expect(filter(url('/guides/start'))).toBe(true);
    expect(filter(url('/docs/private/x'))).toBe(false);
    expect(filter(url('/docs/manual.pdf'))).toBe(false);
    expect(filter(url('/blog/post'))).toBe(false);
    expect(urlFilter([], ['/blog/*'])(url('/docs/a'))).toBe(true);
  });

  it('names the exclude field of a refused pattern', () => {
    expect(() => urlFilter([], ['/a/', '/(unclosed/'])).toThrow(
      expect.objectContaining({ code: 'invalid_request', details: { issues: [{ path: 'exclude.1', message: expect.any(String) }] } }),
    );
  });
});
