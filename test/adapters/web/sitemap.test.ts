import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseSitemap, sitemapPageUrls, type SitemapReadOptions } from '../../../adapters/web/sitemap.js';

const BASE = 'https://s.test/sitemap.xml';
const urlset = (...locs: string[]): string =>
  `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((loc) => `<url><loc>${loc}</loc></url>`).join('')}</urlset>`;
const index = (...locs: string[]): string =>
  `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((loc) => `<sitemap><loc>${loc}</loc></sitemap>`).join('')}</sitemapindex>`;

describe('parseSitemap', () => {
  it('tells a sitemap index from a urlset, prefixed or not', () => {
    expect(parseSitemap(index('https://s.test/a.xml'), BASE)).toEqual({ kind: 'index', urls: ['https://s.test/a.xml'] });
    expect(parseSitemap('<sm:sitemapindex><sm:sitemap><sm:loc>/b.xml</sm:loc></sm:sitemap></sm:sitemapindex>', BASE)).toEqual({
      kind: 'index',
      urls: ['https://s.test/b.xml'],
    });
    expect(parseSitemap(urlset('https://s.test/p'), BASE).kind).toBe('urlset');
  });

  it('decodes entities and CDATA, trims, resolves relative locations, keeps http(s) only', () => {
    const xml =
      '\uFEFF  <urlset><url><loc> https://s.test/a?x=1&amp;y=2 </loc></url><url><loc><![CDATA[https://s.test/b?x=1&y=2]]></loc></url>' +
      '<url><loc>/rel/&#233;t&#xE9;</loc></url><url><loc>ftp://s.test/c</loc></url><url><loc>http://[bad</loc></url><url><loc>&bogus;</loc></url></urlset>';
    expect(parseSitemap(xml, BASE).urls).toEqual([
      'https://s.test/a?x=1&y=2',
      'https://s.test/b?x=1&y=2',
      'https://s.test/rel/%C3%A9t%C3%A9',
      'https://s.test/&bogus;',
    ]);
  });

  it('skips image, video and news locations inside url entries', () => {
    const xml =
      '<urlset><url><loc>https://s.test/page</loc><image:image><image:loc>https://s.test/i.png</image:loc></image:image>' +
      '<video:video><video:loc>https://s.test/v.mp4</video:loc></video:video></url></urlset>';
    expect(parseSitemap(xml, BASE).urls).toEqual(['https://s.test/page']);
  });

  it('reads text sitemaps: one absolute http(s) URL a line, anything else ignored', () => {
    expect(parseSitemap('https://s.test/one\r\nnot a url\n  http://s.test/two  \nftp://s.test/x\n', BASE)).toEqual({
      kind: 'urlset',
      urls: ['https://s.test/one', 'http://s.test/two'],
    });
  });
});

describe('sitemapPageUrls', () => {
  /** Serves `files` from memory and records what was fetched. */
  const source = (files: Record<string, string | Buffer>, extra: Partial<SitemapReadOptions> = {}) => {
    const fetched: string[] = [];
    const options: SitemapReadOptions = {
      maxBytes: 1024 * 1024,
      fetch: async (url) => {
        fetched.push(url);
        const body = files[url];
        if (body === undefined) throw new Error(`404 ${url}`);
        return { finalUrl: url, body: Buffer.isBuffer(body) ? body : Buffer.from(body) };
      },
      ...extra,
    };
    return { options, fetched };
  };
  const collect = async (iterable: AsyncIterable<string>): Promise<string[]> => {
    const out: string[] = [];
    for await (const url of iterable) out.push(url);
    return out;
  };

  it('follows indexes depth-first, gunzips by magic bytes, reads each file once', async () => {
    const { options, fetched } = source({
      'https://s.test/root.xml': index('https://s.test/a.xml', 'https://s.test/b.bin', 'https://s.test/a.xml'),
      'https://s.test/a.xml': urlset('https://s.test/1', 'https://s.test/2'),
      'https://s.test/b.bin': gzipSync(urlset('https://s.test/3')),
    });
    expect(await collect(sitemapPageUrls(['https://s.test/root.xml'], options))).toEqual([
      'https://s.test/1',
      'https://s.test/2',
      'https://s.test/3',
    ]);
    expect(fetched).toEqual(['https://s.test/root.xml', 'https://s.test/a.xml', 'https://s.test/b.bin']);
  });

  it('stops at maxDepth levels of indexes and at maxFiles files', async () => {
    const files = {
      'https://s.test/0.xml': index('https://s.test/1.xml'),
      'https://s.test/1.xml': index('https://s.test/2.xml'),
      'https://s.test/2.xml': urlset('https://s.test/deep'),
    };
    expect(await collect(sitemapPageUrls(['https://s.test/0.xml'], source(files, { maxDepth: 1 }).options))).toEqual([]);
    expect(await collect(sitemapPageUrls(['https://s.test/0.xml'], source(files, { maxDepth: 2 }).options))).toEqual([
      'https://s.test/deep',
    ]);
    const limited = source(files, { maxFiles: 2 });
    expect(await collect(sitemapPageUrls(['https://s.test/0.xml'], limited.options))).toEqual([]);
    expect(limited.fetched).toHaveLength(2);
  });

  it('skips a broken nested sitemap; a broken root throws only with strictRoots', async () => {
    const files = {
      'https://s.test/root.xml': index('https://s.test/missing.xml', 'https://s.test/ok.xml'),
      'https://s.test/ok.xml': urlset('https://s.test/p'),
    };
    expect(await collect(sitemapPageUrls(['https://s.test/root.xml'], source(files).options))).toEqual(['https://s.test/p']);
    expect(await collect(sitemapPageUrls(['https://s.test/none.xml'], source(files).options))).toEqual([]);
    await expect(collect(sitemapPageUrls(['https://s.test/none.xml'], source(files, { strictRoots: true }).options))).rejects.toThrow(
      '404',
    );
  });

  it('refuses a gzip file that inflates past maxBytes, and a corrupt one', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024, 'a'));
    const strict = { strictRoots: true, maxBytes: 1024 };
    await expect(
      collect(sitemapPageUrls(['https://s.test/bomb'], source({ 'https://s.test/bomb': bomb }, strict).options)),
    ).rejects.toMatchObject({
      code: 'payload_too_large',
    });
    const corrupt = Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.from('not gzip at all')]);
    await expect(
      collect(sitemapPageUrls(['https://s.test/bad'], source({ 'https://s.test/bad': corrupt }, strict).options)),
    ).rejects.toMatchObject({
      code: 'upstream_failed',
      details: { reason: 'content_encoding' },
    });
  });
});

describe('parseSitemap on hostile files', () => {
  it('reads prefixed, upper-case and spaced tags, and skips extension locs, as before', () => {
    const xml =
      '<urlset><URL><LOC>https://s.test/a</LOC></URL><url><s:loc >https://s.test/b</s:loc ></url>' +
      '<url><loc>https://s.test/c</loc><image:image><image:loc>https://s.test/i.png</image:loc></image:image></url>' +
      '<url><location>https://s.test/not</location><loc-x>https://s.test/no</loc-x></url></urlset>';
    expect(parseSitemap(xml, 'https://s.test/sitemap.xml').urls).toEqual(['https://s.test/a', 'https://s.test/b', 'https://s.test/c']);
  });

  it('reads megabytes of unclosed <loc> tags in one pass (the regex restarted at each one: quadratic)', () => {
    // 1.2 MB each: the regular expression took 0.4 s for 20 KB of these and grows with the square.
    for (const body of ['<loc '.repeat(240_000), '<loc>'.repeat(240_000), `<loc>https://s.test/a</loc>${'<loc>x'.repeat(200_000)}`]) {
      const parsed = parseSitemap(`<urlset>${body}`, 'https://s.test/sitemap.xml');
      expect(parsed.urls.length).toBeLessThanOrEqual(1);
    }
  });
});
