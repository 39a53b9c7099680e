import { describe, expect, it } from 'vitest';
import { lastmodEnd, parseSitemapPages } from '../../../adapters/web/sitemap.js';

const BASE = 'https://s.test/sitemap.xml';

describe('sitemap <lastmod>', () => {
  it('pairs each page with the lastmod of its own <url>, before or after its <loc>, and none for a page without', () => {
    const xml =
      '<urlset>' +
      '<url><loc>https://s.test/a</loc><lastmod>2026-11-01T10:00:00Z</lastmod></url>' +
      '<url><loc>https://s.test/b</loc></url>' +
      '<url>\n  <lastmod>2026-11-02</lastmod>\n  <loc>https://s.test/c</loc></url>' +
      '<url><loc>https://s.test/d</loc><image:image><image:loc>https://s.test/d.png</image:loc></image:image><lastmod> 2026-11-03T08:30+02:00 </lastmod></url>' +
      '<url><loc>https://s.test/e</loc><lastmod>yesterday</lastmod></url>' +
      '</urlset>';
    expect(parseSitemapPages(xml, BASE)).toEqual({
      kind: 'urlset',
      pages: [
        { url: 'https://s.test/a', lastmod: Date.parse('2026-11-01T10:00:00Z') },
        { url: 'https://s.test/b' },
        { url: 'https://s.test/c', lastmod: Date.parse('2026-11-03T00:00:00Z') - 1 },
        { url: 'https://s.test/d', lastmod: Date.parse('2026-11-03T06:30:00Z') + 59_999 },
        { url: 'https://s.test/e' },
      ],
    });
  });

  it('without <url> elements, takes the lastmod between a <loc> and the next', () => {
    const xml = '<urlset><loc>https://s.test/a</loc><lastmod>2026-01-05</lastmod><loc>https://s.test/b</loc></urlset>';
    expect(parseSitemapPages(xml, BASE).pages).toEqual([
      { url: 'https://s.test/a', lastmod: Date.parse('2026-01-06T00:00:00Z') - 1 },
      { url: 'https://s.test/b' },
    ]);
  });

  it('a lastmod names the end of its period: a year, a month, a day, a minute, a second', () => {
    expect(lastmodEnd('2026')).toBe(Date.parse('2027-01-01T00:00:00Z') - 1);
    expect(lastmodEnd('2026-02')).toBe(Date.parse('2026-03-01T00:00:00Z') - 1);
    expect(lastmodEnd('2024-02-29')).toBe(Date.parse('2024-03-01T00:00:00Z') - 1);
    expect(lastmodEnd('2026-11-28T10:05Z')).toBe(Date.parse('2026-11-28T10:05:59.999Z'));
    expect(lastmodEnd('2026-11-28T10:05:07.25-01:00')).toBe(Date.parse('2026-11-28T11:05:07.250Z'));
    for (const bad of [
      '',
      '2026-13',
      '2026-02-30',
      '2025-02-29',
      '28/11/2026',
      '2026-11-28T10Z',
      '2026-11-28 10:05Z',
      'x'.repeat(10_000),
    ]) {
      expect(lastmodEnd(bad), bad).toBeUndefined();
    }
  });

  it('reads a sitemap of many entries with and without lastmods in one pass', () => {
    const entries = Array.from({ length: 20_000 }, (_, i) =>
      i % 2 === 0 ? `<url><loc>https://s.test/${i}</loc><lastmod>2026-11-01</lastmod></url>` : `<url><loc>https://s.test/${i}</loc></url>`,
    );
    const pages = parseSitemapPages(`<urlset>${entries.join('')}</urlset>`, BASE).pages;
    expect(pages).toHaveLength(20_000);
    expect(pages.filter((page) => page.lastmod !== undefined)).toHaveLength(10_000);
    expect(pages[1]).toEqual({ url: 'https://s.test/1' });
  });
});
