import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractHtml } from '../../../adapters/loaders/index.js';
import { parseRobots, parseSitemap, webLoader } from '../../../adapters/web/index.js';
import { ARTICLE_PAGE } from '../../../benchmarks/lib/html-pages.js';
import { RagdeskError } from '../../../src/errors.js';
import type { WebLoader, WebPage, WebPageFailure } from '../../../src/ports/web-loader.js';
import { startHttpServer, type TestHttpServer } from '../../helpers/http-server.js';

const html = (title: string, body: string): string =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

describe('webLoader: pages', () => {
  let server: TestHttpServer;
  let loader: WebLoader;
  const hugeGzip = gzipSync(Buffer.alloc(3 * 1024 * 1024, 'a'));

  beforeAll(async () => {
    server = await startHttpServer((request: IncomingMessage, response: ServerResponse) => {
      const path = request.url ?? '/';
      const send = (status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): void => {
        response.writeHead(status, { 'content-type': type, ...headers });
        response.end(body);
      };
      if (path === '/article') return send(200, 'text/html; charset=utf-8', ARTICLE_PAGE);
      if (path === '/no-title') return send(200, 'text/html', '<h1>Only  a heading</h1><p>Body text.</p>');
      if (path === '/plain') return send(200, 'text/plain', 'just text\nsecond line');
      if (path === '/latin1') return send(200, 'text/html; charset=iso-8859-1', Buffer.from(html('Caf\xe9', '<p>cr\xe8me</p>'), 'latin1'));
      if (path === '/gzip') return send(200, 'text/html', gzipSync(html('Gz', '<p>gzip body</p>')), { 'content-encoding': 'gzip' });
      if (path === '/br') return send(200, 'text/html', brotliCompressSync(html('Br', '<p>brotli body</p>')), { 'content-encoding': 'br' });
      if (path === '/deflate')
        return send(200, 'text/html', deflateSync(html('Df', '<p>deflate body</p>')), { 'content-encoding': 'deflate' });
      if (path === '/file.pdf') return send(200, 'application/pdf', Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(2048)]));
      if (path === '/huge') {
        response.writeHead(200, { 'content-type': 'text/html' }); // chunked, no length announced
        const chunk = `<p>${'x'.repeat(64 * 1024)}</p>`;
        let sent = 0;
        const pump = (): void => {
          while (sent < 40 && !response.destroyed) {
            sent++;
            if (!response.write(chunk)) return void response.once('drain', pump);
          }
          response.end();
        };
        return pump();
      }
      if (path === '/huge-declared') return send(200, 'text/html', Buffer.alloc(2 * 1024 * 1024, 'a'));
      if (path === '/huge-gzip') return send(200, 'text/html', hugeGzip, { 'content-encoding': 'gzip' });
      if (path === '/slow') return void setTimeout(() => !response.destroyed && send(200, 'text/html', html('Slow', 'late')), 5_000);
      if (path === '/slow-body') {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.write('<p>start');
        return void setTimeout(() => !response.destroyed && response.end('</p>'), 5_000);
      }
      if (path === '/loop-a') return send(302, 'text/plain', '', { location: '/loop-b' });
      if (path === '/loop-b') return send(301, 'text/plain', '', { location: '/loop-a#frag' });
      const chain = /^\/chain\/(\d+)$/.exec(path);
      if (chain) return send(302, 'text/plain', '', { location: `/chain/${Number(chain[1]) + 1}` });
      if (path === '/moved') return send(301, 'text/plain', '', { location: '/plain' });
      if (path === '/to-file') return send(302, 'text/plain', '', { location: 'file:///etc/passwd' });
      if (path === '/busy') return send(503, 'text/plain', 'busy', { 'retry-after': '7' });
      if (path === '/limited') return send(429, 'text/plain', 'slow down');
      if (path === '/denied') return send(403, 'text/plain', 'no');
      if (path === '/gone') return send(410, 'text/plain', 'gone');
      return send(404, 'text/plain', 'not here');
    });
    // 2.5 s: far above a loopback page on a loaded machine, half the 5 s /slow waits.
    loader = webLoader({ allowPrivateNetwork: true, timeoutMs: 2_500, maxBytes: 1024 * 1024 });
  });
  afterAll(() => server.close());

  const codeOf = async (url: string, target = loader): Promise<RagdeskError> => {
    const error = await target.loadPage(url).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(RagdeskError);
    return error as RagdeskError;
  };

  it('extracts the main text and drops boilerplate', async () => {
    const page = await loader.loadPage(`${server.origin}/article`);
    const text = page.document.sections.map((section) => section.text).join('\n');
    expect(page.title).toBe('Tide Tables Explained');
    expect(page.document.title).toBe('Tide Tables Explained');
    expect(page.document.mimeType).toBe('text/html');
    expect(page.document.sections).toHaveLength(1);
    expect(text).toContain('How tides work');
    expect(text).toContain('The moon pulls the ocean toward it.');
    expect(text).toMatch(/Spring tides\n\nNew moon\nFull moon/);
    expect(text).toContain('line one\n  line two');
    for (const absent of ['SCRIPT', 'HEADER-TEXT', 'NAV-TEXT', 'COOKIE', 'ASIDE', 'HIDDEN', 'SHARE', 'NOSCRIPT', 'FOOTER', 'color: red']) {
      expect(text).not.toContain(absent);
    }
    // One extractor for fetched pages and uploaded files: the same page gives the same text.
    expect(text).toBe(extractHtml(ARTICLE_PAGE).text);
    // Links come from the whole page (navigation included), same origin only, without fragments.
    expect(page.links).toEqual([`${server.origin}/about`, `${server.origin}/docs`]);
  });

  it('takes the title from the first heading, reads text/plain, charsets and encodings', async () => {
    const noTitle = await loader.loadPage(`${server.origin}/no-title`);
    expect(noTitle.title).toBe('Only a heading');
    expect(noTitle.document.sections[0]!.text).toBe('Only a heading\n\nBody text.');
    const plain = await loader.loadPage(`${server.origin}/plain`);
    expect(plain.document).toMatchObject({ mimeType: 'text/plain', sections: [{ text: 'just text\nsecond line' }] });
    expect((await loader.loadPage(`${server.origin}/latin1`)).document.sections[0]!.text).toBe('crème');
    for (const [path, text] of [
      ['/gzip', 'gzip body'],
      ['/br', 'brotli body'],
      ['/deflate', 'deflate body'],
    ]) {
      expect((await loader.loadPage(`${server.origin}${path}`)).document.sections[0]!.text).toBe(text);
    }
  });

  it('follows redirects and reports the final URL', async () => {
    const page = await loader.loadPage(`${server.origin}/moved`);
    expect(page.url).toBe(`${server.origin}/moved`);
    expect(page.finalUrl).toBe(`${server.origin}/plain`);
  });

  it('fails cleanly on redirect loops, long chains and redirects to other schemes', async () => {
    const loop = await codeOf(`${server.origin}/loop-a`);
    expect(loop.code).toBe('upstream_failed');
    expect(loop.details?.reason).toBe('redirect_loop');
    expect(loop.retryable).toBe(false);
    const chain = await codeOf(`${server.origin}/chain/0`, webLoader({ allowPrivateNetwork: true, maxRedirects: 2 }));
    expect(chain.details?.reason).toBe('too_many_redirects');
    expect(server.requests.filter((path) => path.startsWith('/chain/'))).toHaveLength(3);
    expect((await codeOf(`${server.origin}/to-file`)).code).toBe('invalid_request');
  });

  it('times out slow pages and slow bodies (retryable)', async () => {
    // The server answers /slow after 5 s: the reason `timeout` is the loader's 2.5 s deadline.
    for (const path of ['/slow', '/slow-body']) {
      const error = await codeOf(`${server.origin}${path}`);
      expect(error).toMatchObject({ code: 'upstream_failed', retryable: true });
      expect(error.details?.reason).toBe('timeout');
    }
  });

  it('caps bytes on the wire and after decompression', async () => {
    for (const path of ['/huge', '/huge-declared', '/huge-gzip']) {
      const error = await codeOf(`${server.origin}${path}`);
      expect(error.code, path).toBe('payload_too_large');
    }
    expect(hugeGzip.length).toBeLessThan(1024 * 1024); // the compressed body alone is under the cap
  });

  it('refuses non-HTML pages', async () => {
    const error = await codeOf(`${server.origin}/file.pdf`);
    expect(error.code).toBe('unsupported_media_type');
    expect(error.details?.contentType).toBe('application/pdf');
  });

  it('maps HTTP statuses to stable codes', async () => {
    const busy = await codeOf(`${server.origin}/busy`);
    expect(busy).toMatchObject({ code: 'upstream_failed', retryable: true });
    expect(busy.details?.retryAfterMs).toBe(7_000);
    expect(await codeOf(`${server.origin}/limited`)).toMatchObject({ code: 'upstream_failed', retryable: true });
    expect(await codeOf(`${server.origin}/denied`)).toMatchObject({ code: 'upstream_failed', retryable: false });
    expect((await codeOf(`${server.origin}/gone`)).code).toBe('not_found');
    expect((await codeOf(`${server.origin}/nothing`)).code).toBe('not_found');
  });

  it('stops when aborted', async () => {
    // /slow answers after 5 s: a rejection with the abort's reason comes from the signal, not the page.
    const controller = new AbortController();
    const pending = loader.loadPage(`${server.origin}/slow`, { signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    const later = new AbortController();
    const inFlight = webLoader({ allowPrivateNetwork: true }).loadPage(`${server.origin}/slow`, { signal: later.signal });
    setTimeout(() => later.abort(new Error('stop later')), 50);
    await expect(inFlight).rejects.toThrow('stop later');
  });
});

interface SiteState {
  gonePresent: boolean;
}

function urlsOf(items: Array<WebPage | WebPageFailure>): string[] {
  return items.map((item) => item.url);
}

async function collect(iterable: AsyncIterable<WebPage | WebPageFailure>): Promise<Array<WebPage | WebPageFailure>> {
  const items: Array<WebPage | WebPageFailure> = [];
  for await (const item of iterable) items.push(item);
  return items;
}

const isFailure = (item: WebPage | WebPageFailure): item is WebPageFailure => 'code' in item;

describe('webLoader: sites with robots.txt and sitemaps', () => {
  let server: TestHttpServer;
  const state: SiteState = { gonePresent: true };
  let loader: WebLoader;

  beforeAll(async () => {
    server = await startHttpServer((request, response, self) => {
      const base = self.origin;
      const path = request.url ?? '/';
      const send = (status: number, type: string, body: string | Buffer): void => {
        response.writeHead(status, { 'content-type': type });
        response.end(body);
      };
      const urlset = (paths: string[]): string =>
        `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">${paths
          .map((p) => `<url><loc>${base}${p}</loc><image:image><image:loc>${base}/img.png</image:loc></image:image></url>`)
          .join('')}</urlset>`;
      const index = (paths: string[]): string =>
        `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths
          .map((p) => `<sitemap><loc>${base}${p}</loc></sitemap>`)
          .join('')}</sitemapindex>`;
      switch (path) {
        case '/robots.txt':
          return send(
            200,
            'text/plain',
            `User-agent: otherbot\nDisallow: /\n\nUser-agent: *\nDisallow: /private\nAllow: /private/ok\n\nSitemap: ${base}/sitemap-index.xml\n`,
          );
        case '/sitemap-index.xml':
          return send(
            200,
            'application/xml',
            index(['/sitemaps/pages.xml', '/sitemaps/more.xml.gz', '/sitemaps/nested-index.xml', '/sitemaps/missing.xml']),
          );
        case '/sitemaps/pages.xml':
          return send(
            200,
            'application/xml',
            urlset(['/', '/about?x=1&amp;y=2', '/private/secret', '/private/ok', '/gone', '/slow', '/about?x=1&amp;y=2#dup']),
          );
        case '/sitemaps/more.xml.gz':
          return send(200, 'application/octet-stream', gzipSync(urlset(['/gz-page'])));
        case '/sitemaps/nested-index.xml':
          return send(200, 'text/xml', index(['/sitemaps/deep.xml']));
        case '/sitemaps/deep.xml':
          return send(200, 'text/xml', urlset(['/deep-page']));
        case '/slow':
          return void setTimeout(() => !response.destroyed && send(200, 'text/html', html('Slow', 'late')), 5_000);
        case '/gone':
          return state.gonePresent ? send(200, 'text/html', html('Gone soon', '<p>here today</p>')) : send(404, 'text/plain', 'gone');
        case '/':
        case '/about?x=1&y=2':
        case '/private/ok':
        case '/private/secret':
        case '/gz-page':
        case '/deep-page':
          return send(200, 'text/html', html(`Page ${path}`, `<p>Content of ${path}</p>`));
        default:
          return send(404, 'text/plain', 'not here');
      }
    });
    // 2.5 s: far above a loopback page on a loaded machine, half the 5 s /slow waits.
    loader = webLoader({ allowPrivateNetwork: true, timeoutMs: 2_500 });
  });
  afterAll(() => server.close());

  it('discovers the sitemap index through robots.txt and respects Disallow', async () => {
    const items = await collect(loader.crawlSite({ sourceUrl: `${server.origin}/` }));
    const o = server.origin;
    expect(urlsOf(items)).toEqual([
      `${o}/`,
      `${o}/about?x=1&y=2`,
      `${o}/private/ok`,
      `${o}/gone`,
      `${o}/slow`,
      `${o}/gz-page`,
      `${o}/deep-page`,
    ]);
    expect(server.requests).not.toContain('/private/secret');
    expect(server.requests).not.toContain('/img.png');
    const slow = items.find(isFailure);
    expect(slow).toMatchObject({ url: `${o}/slow`, code: 'upstream_failed', retryable: true });
    const page = items[0] as WebPage;
    expect(page.title).toBe('Page /');
    expect(page.document.sections[0]!.text).toBe('Content of /');
  });

  it('yields a failure for a page that disappeared and goes on', async () => {
    state.gonePresent = false;
    try {
      const items = await collect(loader.crawlSite({ sitemap: `${server.origin}/sitemap-index.xml`, exclude: ['/slow'] }));
      const gone = items.find((item) => item.url.endsWith('/gone'));
      expect(gone).toMatchObject({ code: 'not_found', retryable: false });
      expect(items.filter((item) => !isFailure(item))).toHaveLength(5);
      expect(items.at(-1)?.url).toBe(`${server.origin}/deep-page`);
    } finally {
      state.gonePresent = true;
    }
  });

  it('reads a given gzip sitemap, applies include and maxPages', async () => {
    const gz = await collect(loader.crawlSite({ sitemap: `${server.origin}/sitemaps/more.xml.gz` }));
    expect(urlsOf(gz)).toEqual([`${server.origin}/gz-page`]);
    const included = await collect(
      loader.crawlSite({ sitemap: `${server.origin}/sitemaps/pages.xml`, include: ['*/private/*', '/about/'] }),
    );
    expect(urlsOf(included)).toEqual([`${server.origin}/about?x=1&y=2`, `${server.origin}/private/ok`]);
    const limited = await collect(loader.crawlSite({ sitemap: `${server.origin}/sitemap-index.xml`, maxPages: 2 }));
    expect(limited).toHaveLength(2);
  });

  it('throws when the given sitemap cannot be read, or the options are unusable', async () => {
    await expect(collect(loader.crawlSite({ sitemap: `${server.origin}/no-such-sitemap.xml` }))).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(collect(loader.crawlSite({}))).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(collect(loader.crawlSite({ sourceUrl: `${server.origin}/`, maxPages: 0 }))).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });

  it('stops on abort', async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const run = (async () => {
      for await (const item of loader.crawlSite({ sourceUrl: `${server.origin}/`, signal: controller.signal })) {
        seen.push(item.url);
        if (seen.length === 1) controller.abort(new Error('cancelled'));
      }
    })();
    await expect(run).rejects.toThrow('cancelled');
    expect(seen).toHaveLength(1);
  });
});

describe('webLoader: link crawl without a sitemap', () => {
  let server: TestHttpServer;
  const loader = webLoader({ allowPrivateNetwork: true, timeoutMs: 2_000 });
  const links: Record<string, string[]> = {
    '/': ['/docs/a', '/docs/b#section', '/blog/x', '/docs/private/p', 'https://elsewhere.example/docs/z', 'mailto:x@y.z'],
    '/docs/a': ['/docs/a/deep1', '/'],
    '/docs/b': ['/docs/missing'],
    '/docs/a/deep1': ['/docs/a/deep2'],
    '/docs/a/deep2': ['/docs/a/deep3'],
  };

  beforeAll(async () => {
    server = await startHttpServer((request, response) => {
      const path = request.url ?? '/';
      const targets = links[path];
      if (!targets) {
        response.writeHead(404, { 'content-type': 'text/plain' });
        return void response.end('missing');
      }
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(html(path, `<p>Page ${path}</p>${targets.map((href) => `<a href="${href}">${href}</a>`).join(' ')}`));
    });
  });
  afterAll(() => server.close());

  it('crawls breadth-first within maxDepth, include and exclude', async () => {
    const items = await collect(
      loader.crawlSite({ sourceUrl: `${server.origin}/`, maxDepth: 2, include: ['/docs/*'], exclude: ['/private/'] }),
    );
    const o = server.origin;
    expect(urlsOf(items)).toEqual([`${o}/`, `${o}/docs/a`, `${o}/docs/b`, `${o}/docs/a/deep1`, `${o}/docs/missing`]);
    expect(items.at(-1)).toMatchObject({ code: 'not_found' });
    for (const never of ['/blog/x', '/docs/private/p', '/docs/a/deep2']) expect(server.requests).not.toContain(never);
    expect(server.requests.filter((path) => path === '/')).toHaveLength(1);
    expect(server.requests).toContain('/robots.txt');
    expect(server.requests).toContain('/sitemap.xml');
  });

  it('stops at maxPages', async () => {
    const before = server.requests.length;
    const items = await collect(loader.crawlSite({ sourceUrl: `${server.origin}/`, maxPages: 2 }));
    expect(urlsOf(items)).toEqual([`${server.origin}/`, `${server.origin}/docs/a`]);
    const pageRequests = server.requests.slice(before).filter((path) => !['/robots.txt', '/sitemap.xml'].includes(path));
    expect(pageRequests).toHaveLength(2);
  });
});

describe('robots.txt and sitemap parsing', () => {
  it('picks our group, longest match, Allow on ties, * and $ wildcards', () => {
    const robots = parseRobots(
      [
        'User-agent: *',
        'Disallow: /',
        '',
        'User-agent: Ragdesk/2',
        'User-agent: otherbot',
        'Disallow: /tmp',
        'Allow: /tmp/public',
        'Disallow: /*.pdf$',
        'Disallow: /search?*q=',
        'Allow: /same',
        'Disallow: /same',
        'Sitemap: /map.xml # comment',
      ].join('\n'),
      'ragdesk/0.1 (+https://github.com/ragdesk)',
      'https://site.test/robots.txt',
    );
    const allowed = (path: string): boolean => robots.isAllowed(new URL(path, 'https://site.test'));
    expect(allowed('/')).toBe(true);
    expect(allowed('/tmp/x')).toBe(false);
    expect(allowed('/tmp/public/x')).toBe(true);
    expect(allowed('/a/b.pdf')).toBe(false);
    expect(allowed('/a/b.pdf?x')).toBe(true);
    expect(allowed('/search?lang=en&q=tides')).toBe(false);
    expect(allowed('/same')).toBe(true);
    expect(robots.sitemaps).toEqual(['https://site.test/map.xml']);
    const star = parseRobots('User-agent: *\nDisallow: /private\n', 'ragdesk/0.1', 'https://site.test/robots.txt');
    expect(star.isAllowed(new URL('https://site.test/private/a'))).toBe(false);
    expect(star.isAllowed(new URL('https://site.test/robots.txt'))).toBe(true);
  });

  it('parses XML (with CDATA and entities) and text sitemaps', () => {
    const xml = parseSitemap(
      '<urlset><url><loc><![CDATA[https://s.test/a?x=1&y=2]]></loc></url><url><loc> https://s.test/b?x=1&amp;y=2 </loc></url><url><loc>ftp://s.test/c</loc></url></urlset>',
      'https://s.test/sitemap.xml',
    );
    expect(xml).toEqual({ kind: 'urlset', urls: ['https://s.test/a?x=1&y=2', 'https://s.test/b?x=1&y=2'] });
    expect(parseSitemap('https://s.test/one\nnot a url\nhttps://s.test/two\n', 'https://s.test/s.txt').urls).toEqual([
      'https://s.test/one',
      'https://s.test/two',
    ]);
  });
});

describe('webLoader: robots.txt failures and per-host concurrency', () => {
  let server: TestHttpServer;
  let robotsStatus = 503;
  let active = 0;
  let peak = 0;

  beforeAll(async () => {
    server = await startHttpServer((request, response) => {
      if (request.url === '/robots.txt') {
        response.writeHead(robotsStatus, { 'content-type': 'text/plain' });
        return void response.end('');
      }
      if (request.url === '/sitemap.xml') {
        response.writeHead(404);
        return void response.end();
      }
      active++;
      peak = Math.max(peak, active);
      setTimeout(() => {
        active--;
        const links = Array.from({ length: 8 }, (_, index) => `<a href="/p${index}">p${index}</a>`).join('');
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end(html(request.url ?? '', links));
      }, 30);
    });
  });
  afterAll(() => server.close());

  it('crawls nothing while robots.txt is unreachable, with a retryable failure', async () => {
    robotsStatus = 503;
    const items = await collect(webLoader({ allowPrivateNetwork: true }).crawlSite({ sourceUrl: `${server.origin}/` }));
    expect(items).toEqual([expect.objectContaining({ url: `${server.origin}/`, code: 'upstream_failed', retryable: true })]);
    expect(server.requests).toEqual(['/robots.txt']);
  });

  it('treats a 4xx robots.txt as no restrictions and keeps to perHostConcurrency', async () => {
    robotsStatus = 403;
    peak = 0;
    const items = await collect(
      webLoader({ allowPrivateNetwork: true, perHostConcurrency: 2 }).crawlSite({ sourceUrl: `${server.origin}/` }),
    );
    expect(items).toHaveLength(9);
    expect(items.every((item) => !isFailure(item))).toBe(true);
    expect(peak).toBe(2);
  });
});
