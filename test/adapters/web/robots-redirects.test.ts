/**
 * robots.txt on every redirect hop: two real servers on 127.0.0.1 (two origins, each with its own
 * robots.txt), reached through the loader's address hook. A page, a file or a crawled page that
 * redirects to a path the target's robots.txt disallows is refused before that path is requested.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webLoader } from '../../../adapters/web/index.js';
import { RagdeskError } from '../../../src/errors.js';
import type { WebLoader, WebPage, WebPageFailure } from '../../../src/ports/web-loader.js';
import { startHttpServer, type TestHttpServer } from '../../helpers/http-server.js';

const page = (title: string): string =>
  `<!doctype html><html><head><title>${title}</title></head><body><p>${title} text.</p></body></html>`;

describe('webLoader: robots.txt on redirect hops', () => {
  let source: TestHttpServer;
  let target: TestHttpServer;
  let targetRobotsStatus = 200;
  let loader: WebLoader;

  beforeAll(async () => {
    target = await startHttpServer((request, response) => {
      const path = request.url ?? '/';
      if (path === '/robots.txt') {
        response.writeHead(targetRobotsStatus, { 'content-type': 'text/plain' });
        return void response.end('User-agent: *\nDisallow: /private\nDisallow: /*.pdf$\n');
      }
      if (path.endsWith('.pdf')) {
        response.writeHead(200, { 'content-type': 'application/pdf' });
        return void response.end('%PDF-1.4\n');
      }
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(page(`target ${path}`));
    });
    source = await startHttpServer((request, response, self) => {
      const path = request.url ?? '/';
      const redirect = (location: string): void => void response.writeHead(302, { location }).end();
      switch (path) {
        case '/robots.txt':
          response.writeHead(200, { 'content-type': 'text/plain' });
          return void response.end('User-agent: *\nDisallow: /own-secret\n');
        case '/sitemap.xml':
          response.writeHead(200, { 'content-type': 'application/xml' });
          return void response.end(
            `<urlset><url><loc>${self.origin}/to-private</loc></url><url><loc>${self.origin}/to-public</loc></url></urlset>`,
          );
        case '/to-private':
          return redirect(`${target.origin}/private/page`);
        case '/to-private-twice':
          return redirect('/hop');
        case '/hop':
          return redirect(`${target.origin}/private/deeper`);
        case '/to-public':
          return redirect(`${target.origin}/public/page`);
        case '/to-own-secret':
          return redirect('/own-secret');
        case '/to-pdf':
          return redirect(`${target.origin}/files/report.pdf`);
        default:
          response.writeHead(200, { 'content-type': 'text/html' });
          return void response.end(page(`source ${path}`));
      }
    });
    // The address hook lets the loader reach these two loopback servers (and nothing else private).
    loader = webLoader({ isAllowedAddress: (address) => address === '127.0.0.1', timeoutMs: 2_000, parser: 'main' });
  });
  afterAll(async () => {
    await source.close();
    await target.close();
  });

  const failureOf = async (run: Promise<unknown>): Promise<RagdeskError> => {
    const error = await run.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(RagdeskError);
    return error as RagdeskError;
  };

  it("refuses a page redirected to a path the target's robots.txt disallows, without requesting it", async () => {
    const error = await failureOf(loader.loadPage(`${source.origin}/to-private`));
    expect(error.code).toBe('forbidden');
    expect(error.details).toEqual({
      reason: 'robots_txt',
      url: `${target.origin}/private/page`,
      redirectedFrom: `${source.origin}/to-private`,
    });
    const twice = await failureOf(loader.loadPage(`${source.origin}/to-private-twice`));
    expect(twice.details).toMatchObject({ url: `${target.origin}/private/deeper`, redirectedFrom: `${source.origin}/hop` });
    const own = await failureOf(loader.loadPage(`${source.origin}/to-own-secret`));
    expect(own.details).toMatchObject({ reason: 'robots_txt', url: `${source.origin}/own-secret` });
    expect(target.requests.filter((path) => path.startsWith('/private'))).toEqual([]);
    expect(source.requests).not.toContain('/own-secret');
    // An allowed target loads, and reports where it landed.
    const allowed = await loader.loadPage(`${source.origin}/to-public`);
    expect(allowed.finalUrl).toBe(`${target.origin}/public/page`);
  });

  it('refuses a file redirected to a disallowed path, and loads both when robots.txt is ignored', async () => {
    const error = await failureOf(loader.fetchFile!(`${source.origin}/to-pdf`));
    expect(error).toMatchObject({ code: 'forbidden', details: { reason: 'robots_txt', url: `${target.origin}/files/report.pdf` } });
    expect(target.requests).not.toContain('/files/report.pdf');
    const file = await loader.fetchFile!(`${source.origin}/to-pdf`, { ignoreRobots: true });
    expect(file.finalUrl).toBe(`${target.origin}/files/report.pdf`);
    const ignored = await loader.loadPage(`${source.origin}/to-private`, { ignoreRobots: true });
    expect(ignored.finalUrl).toBe(`${target.origin}/private/page`);
  });

  it('fails with the retryable error while the target host robots.txt is unreachable', async () => {
    targetRobotsStatus = 503;
    try {
      const fresh = webLoader({ isAllowedAddress: (address) => address === '127.0.0.1', timeoutMs: 2_000, parser: 'main' });
      const error = await failureOf(fresh.loadPage(`${source.origin}/to-public`));
      expect(error).toMatchObject({ code: 'upstream_failed', retryable: true });
    } finally {
      targetRobotsStatus = 200;
    }
  });

  it('yields a crawled page that redirects to a disallowed path as a forbidden failure', async () => {
    const before = target.requests.length;
    const items: Array<WebPage | WebPageFailure> = [];
    for await (const item of loader.crawlSite({ sitemap: `${source.origin}/sitemap.xml` })) items.push(item);
    expect(items.map((item) => ('code' in item ? `${item.url} ${item.code}` : item.url))).toEqual([
      `${source.origin}/to-private forbidden`,
      `${source.origin}/to-public`,
    ]);
    expect(target.requests.slice(before).filter((path) => path.startsWith('/private'))).toEqual([]);
  });
});
