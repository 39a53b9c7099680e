import { describe, expect, it } from 'vitest';
import { extractHtml, extractHtmlWith } from '../../../../adapters/loaders/html/extract-html.js';
import { HTML_RULES } from '../../../../adapters/loaders/html/rules.js';
import { RagdeskError } from '../../../../src/errors.js';

const page = (body: string, head = '<title>T</title>'): string => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;
const text = (body: string): string => extractHtml(page(body)).text;

describe('extractHtml: hidden text and chrome', () => {
  it('drops hidden elements: attribute, aria-hidden, inline styles, template, noscript, controls', () => {
    const result = text(
      '<p>kept</p><p hidden>H1</p><p aria-hidden="true">H2</p><p style="DISPLAY : none">H3</p>' +
        '<p style="color:red; visibility:hidden">H4</p><template><p>H5</p></template><noscript>H6</noscript>' +
        '<button>H7</button><select><option>H8</option></select><textarea>H9</textarea><p style="display:block">shown</p>',
    );
    expect(result).toBe('kept\n\nshown');
  });

  it('drops chrome by tag, role and class/id name, but never a wrapper that holds the page', () => {
    const result = text(
      '<nav>N1</nav><aside>N2</aside><footer>N3</footer><div role="navigation">N4</div><div role="banner">N5</div>' +
        '<div class="cookieBanner">N6</div><div id="site-breadcrumbs">N7</div><div class="post-share">N8</div>' +
        '<div class="shared-notes">kept shared</div><div class="has-sidebar"><div class="page-footer">N9</div><h1>Title</h1><p>body</p></div>',
    );
    expect(result).toBe('kept shared\n\nTitle\n\nbody');
  });

  it('keeps a form that wraps the whole page, removes a small one', () => {
    const body = `<form id="aspnetForm"><p>${'Long report text. '.repeat(20)}</p></form><form action="/search"><p>SEARCH</p></form>`;
    const result = text(body);
    expect(result).toContain('Long report text.');
    expect(result).not.toContain('SEARCH');
  });

  it('a page header goes, an article header stays; main is preferred to the body', () => {
    const result = text(
      '<header>SITE</header><p>outside</p><main><article><header><h1>Own title</h1></header><p>inside</p></article></main>',
    );
    expect(result).toBe('Own title\n\ninside');
    expect(text('<header>SITE</header><article><p>only</p></article><p>after</p>')).toBe('only');
    expect(text('<article><p>one</p></article><article><p>two</p></article>')).toBe('one\n\ntwo');
  });

  it('removes link lists unless the page is mostly links', () => {
    const links = (count: number) =>
      `<ul>${Array.from({ length: count }, (_, i) => `<li><a href="/${i}">link ${i}</a></li>`).join('')}</ul>`;
    expect(text(`<p>${'Words of the article. '.repeat(10)}</p>${links(6)}`)).not.toContain('link 0');
    expect(text(`<p>${'Words of the article. '.repeat(10)}</p>${links(4)}`)).toContain('link 0');
    expect(text(`<p>Index</p>${links(6)}`)).toContain('link 5');
  });
});

describe('extractHtml: text shape', () => {
  it('renders data tables as Markdown rows with a caption, layout tables as blocks', () => {
    expect(
      text(
        '<table><caption>Ships</caption><tr><th>Berth</th><th>Count</th></tr><tr><td>North</td><td>2 | 3</td></tr><tr><td></td></tr></table>',
      ),
    ).toBe('Ships\n| Berth | Count |\n| North | 2 \\| 3 |');
    const layout = text('<table><tr><td><p>left</p></td><td><table><tr><td>a</td><td>b</td></tr></table></td></tr></table>');
    expect(layout).toBe('left\n\n| a | b |');
  });

  it('keeps image alt text except for icons', () => {
    expect(text('<p><img alt="A chart of arrivals"> after</p>')).toBe('A chart of arrivals after');
    expect(text('<p><a href="/x"><img alt="A photo in a link" width="220"></a></p>')).toBe('A photo in a link');
    expect(text('<p><img alt="Edit" width="16"><img alt="Lock" height="20px">text</p>')).toBe('text');
  });

  it('headings and paragraphs are separated by a blank line, list items and nested lists by a line', () => {
    expect(text('<h2>Head\u200b</h2><p>one <b>two</b></p><ul><li>a<ul><li>a1</li></ul></li><li>b</li></ul><pre>  x\n  y</pre>')).toBe(
      'Head\n\none two\n\na\na1\nb\n\n  x\n  y',
    );
  });
});

describe('extractHtml: title, description, links, limits', () => {
  it('takes <title>, else the first h1; the meta description apart from the text', () => {
    const withMeta = extractHtml(page('<h1>Heading</h1>', '<title> Page  title </title><meta name="Description" content="About it">'));
    expect(withMeta).toMatchObject({ title: 'Page title', description: 'About it', text: 'Heading' });
    expect(extractHtml('<h1>Only  heading</h1><p>x</p>').title).toBe('Only heading');
    expect(extractHtml('<p>x</p>').title).toBeUndefined();
    expect(extractHtmlWith('<h1>H</h1>', {}, { ...HTML_RULES, titleFromHeading: false }).title).toBeUndefined();
  });

  it('lists same-origin links only with a page URL, resolved against <base>', () => {
    const html = page(
      '<a href="a#x">a</a><a href="/b">b</a><a href="https://other.test/c">c</a><a href="mailto:x@y">m</a><a href="a">dup</a>',
      '<base href="/docs/">',
    );
    expect(extractHtml(html).links).toEqual([]);
    expect(extractHtml(html, { pageUrl: 'https://site.test/page' }).links).toEqual(['https://site.test/docs/a', 'https://site.test/b']);
  });

  it('reads attribute names in any case, and a page without <body> from <html>', () => {
    const upper = extractHtml(
      '<HTML><HEAD><META NAME="description" CONTENT="About"></HEAD><BODY><DIV CLASS="TOC">contents</DIV><P>text <A HREF="/b">b</A></P></BODY></HTML>',
      { pageUrl: 'https://site.test/a' },
    );
    expect(upper).toEqual({ description: 'About', text: 'text b', links: ['https://site.test/b'] });
    expect(extractHtml('<html><head><title>T</title></head><p>kept</p></html>')).toEqual({ title: 'T', text: 'kept', links: [] });
  });

  it('refuses markup nested too deep, naming the page when given', () => {
    const deep = `${'<div>'.repeat(2000)}x`;
    const error = (() => {
      try {
        extractHtml(deep, { pageUrl: 'https://site.test/deep' });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(RagdeskError);
    expect(error).toMatchObject({ code: 'payload_too_large', details: { reason: 'html_too_deep', url: 'https://site.test/deep' } });
    expect(() => extractHtml(deep)).toThrow(/the HTML nests elements/);
  });
});
