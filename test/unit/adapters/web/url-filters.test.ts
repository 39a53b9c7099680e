import { describe, expect, it } from 'vitest';
import { normalizeUrl, urlFilter } from '../../../../adapters/web/url-filters.js';

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

  it('reads /source/ as a regular expression searched anywhere in the URL', () => {
    const filter = urlFilter(['/\\/v[0-9]+\\//']);
    expect(filter(url('/api/v2/x'))).toBe(true);
    expect(filter(url('/api/latest/x'))).toBe(false);
    // Two characters are not a regular expression but a glob: `//` never matches a path.
    expect(urlFilter(['//'])(url('/a'))).toBe(false);
  });

  it('needs one include to match and no exclude to match', () => {
    const filter = urlFilter(['/docs/*', '/guides/*'], ['*/private/*', '/\\.pdf$/']);
    expect(filter(url('/guides/start'))).toBe(true);
    expect(filter(url('/docs/private/x'))).toBe(false);
    expect(filter(url('/docs/manual.pdf'))).toBe(false);
    expect(filter(url('/blog/post'))).toBe(false);
    expect(urlFilter([], ['/blog/*'])(url('/docs/a'))).toBe(true);
  });

  it('refuses an invalid regular expression as invalid_request naming the field', () => {
    expect(() => urlFilter([], ['/a/', '/(unclosed/'])).toThrow(
      expect.objectContaining({
        code: 'invalid_request',
        details: { issues: [{ path: 'exclude.1', message: 'invalid regular expression' }] },
      }),
    );
  });
});
