import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockedRange, isPrivateAddress, webLoader, type WebLoaderOptions } from '../../../adapters/web/index.js';
import { RagdeskError } from '../../../src/errors.js';
import type { WebPage, WebPageFailure } from '../../../src/ports/web-loader.js';
import { startHttpServer, type TestHttpServer } from '../../helpers/http-server.js';

async function failureOf(promise: Promise<unknown>): Promise<RagdeskError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RagdeskError);
  return error as RagdeskError;
}

/** Refuses to resolve anything: literal-IP URLs must never reach DNS. */
const noDns = (): Promise<never> => Promise.reject(new Error('lookup must not be called'));

describe('SSRF guard (default options)', () => {
  let secret: TestHttpServer;

  beforeAll(async () => {
    secret = await startHttpServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<title>secret</title><p>internal data</p>');
    });
  });
  afterAll(() => secret.close());

  it('refuses private, loopback, link-local and unique-local literal addresses', async () => {
    const loader = webLoader({ timeoutMs: 1_000, lookup: noDns });
    const urls = [
      `http://127.0.0.1:${secret.port}/`,
      `http://127.1.2.3:${secret.port}/`,
      `http://2130706433:${secret.port}/`, // 127.0.0.1 as one number
      `http://0x7f.1:${secret.port}/`,
      'http://0.0.0.0/',
      'http://10.0.0.1/',
      'http://172.16.5.4/',
      'http://172.31.255.255/',
      'http://192.168.1.1/',
      'http://100.64.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://224.0.0.1/',
      'http://255.255.255.255/',
      `http://[::1]:${secret.port}/`,
      'http://[::]/',
      'http://[fd00::1]/',
      'http://[fc00::1]/',
      'http://[fe80::1]/',
      'http://[ff02::1]/',
      `http://[::ffff:127.0.0.1]:${secret.port}/`,
      'http://[::ffff:169.254.169.254]/',
      'http://[64:ff9b::a00:1]/',
      'http://[2002:c0a8:101::1]/',
      'http://[::ffff:0:169.254.169.254]/', // IPv4-translated
      'http://[::169.254.169.254]/', // IPv4-compatible
      'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', // Teredo
      'http://[64:ff9b:1::a9fe:a9fe]/', // local-use NAT64
    ];
    for (const url of urls) {
      const error = await failureOf(loader.loadPage(url));
      expect(error.code, url).toBe('forbidden');
      expect(error.status).toBe(403);
      expect(error.details?.reason, url).toBe('private_address');
      expect(typeof error.details?.address).toBe('string');
    }
    expect(secret.requests).toEqual([]);
  });

  it('refuses a public-looking name that resolves to a private address (any of its addresses)', async () => {
    const toLoopback = webLoader({ lookup: async () => [{ address: '127.0.0.1', family: 4 }] });
    const error = await failureOf(toLoopback.loadPage(`http://docs.example.com:${secret.port}/`));
    expect(error.code).toBe('forbidden');
    expect(error.details).toMatchObject({ reason: 'private_address', address: '127.0.0.1' });
    const mixed = webLoader({
      lookup: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '::1', family: 6 },
      ],
    });
    expect((await failureOf(mixed.loadPage(`http://mixed.example.com:${secret.port}/`))).details?.address).toBe('::1');
    expect(secret.requests).toEqual([]);
  });

  it('refuses to start a crawl on a private address', async () => {
    const loader = webLoader({ lookup: noDns });
    const run = async (): Promise<void> => {
      for await (const item of loader.crawlSite({ sourceUrl: `${secret.origin}/` })) expect(item).toBeUndefined();
    };
    expect((await failureOf(run())).code).toBe('forbidden');
    expect(secret.requests).toEqual([]);
  });

  it('refuses non-http schemes with invalid_request', async () => {
    const loader = webLoader({ lookup: noDns });
    for (const url of [
      'file:///etc/passwd',
      'ftp://example.com/file',
      'data:text/html,<p>hi</p>',
      'javascript:alert(1)',
      'gopher://x/',
      'not a url',
    ]) {
      expect((await failureOf(loader.loadPage(url))).code, url).toBe('invalid_request');
    }
  });

  it('reaches the same server once allowPrivateNetwork is set', async () => {
    const page = await webLoader({ allowPrivateNetwork: true }).loadPage(`${secret.origin}/`, { ignoreRobots: true });
    expect(page.title).toBe('secret');
    expect(secret.requests).toEqual(['/']);
    secret.requests.length = 0;
  });
});

describe('SSRF guard on redirects', () => {
  let publicSite: TestHttpServer;
  let privateSite: TestHttpServer;
  const hostsFor = (): Record<string, string> => ({ 'public.test': '127.0.0.1', 'private.test': '127.0.0.1' });
  let options: WebLoaderOptions;

  beforeAll(async () => {
    privateSite = await startHttpServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<p>internal</p>');
    });
    publicSite = await startHttpServer((request, response) => {
      const target: Record<string, string> = {
        '/to-ip': `http://127.0.0.1:${privateSite.port}/secret`,
        '/to-name': `http://private.test:${privateSite.port}/secret`,
        '/to-metadata': 'http://169.254.169.254/latest/meta-data/',
        '/to-file': 'file:///etc/passwd',
      };
      const location = target[request.url ?? ''];
      if (location) {
        response.writeHead(302, { location });
        return void response.end();
      }
      if (request.url === '/sitemap.xml') {
        response.writeHead(200, { 'content-type': 'application/xml' });
        return void response.end(
          `<urlset><url><loc>http://public.test:${publicSite.port}/ok</loc></url><url><loc>http://private.test:${privateSite.port}/listed</loc></url></urlset>`,
        );
      }
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<title>public</title><p>hello</p>');
    });
    options = {
      timeoutMs: 2_000,
      lookup: async (hostname) => {
        const address = hostsFor()[hostname];
        if (!address) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
        return [{ address, family: 4 }];
      },
      // Test hook: pretend public.test's address is public; everything else keeps the default rule.
      isAllowedAddress: (address, hostname) => hostname === 'public.test' || !isPrivateAddress(address),
    };
  });
  afterAll(async () => {
    await publicSite.close();
    await privateSite.close();
  });

  it('loads the allowed host, then refuses every redirect into the private network', async () => {
    const loader = webLoader(options);
    const base = `http://public.test:${publicSite.port}`;
    const noRobots = { ignoreRobots: true }; // only the page requests matter here
    expect((await loader.loadPage(`${base}/`, noRobots)).title).toBe('public');
    for (const path of ['/to-ip', '/to-name', '/to-metadata']) {
      const error = await failureOf(loader.loadPage(`${base}${path}`, noRobots));
      expect(error.code, path).toBe('forbidden');
      expect(error.details?.reason).toBe('private_address');
    }
    expect((await failureOf(loader.loadPage(`${base}/to-file`, noRobots))).code).toBe('invalid_request');
    expect(publicSite.requests).toEqual(['/', '/to-ip', '/to-name', '/to-metadata', '/to-file']);
    expect(privateSite.requests).toEqual([]);
  });

  it('yields forbidden failures for private pages listed by a public sitemap', async () => {
    const loader = webLoader(options);
    const items: Array<WebPage | WebPageFailure> = [];
    for await (const item of loader.crawlSite({ sitemap: `http://public.test:${publicSite.port}/sitemap.xml` })) items.push(item);
    expect(items.map((item) => ('code' in item ? item.code : 'page'))).toEqual(['page', 'forbidden']);
    expect(privateSite.requests).toEqual([]);
  });

  it('connects to the address it checked (one lookup per hop, no second resolution)', async () => {
    let calls = 0;
    const rebinding = webLoader({
      allowPrivateNetwork: true,
      timeoutMs: 2_000,
      // First answer is the real server; a second resolution would get an unroutable address.
      lookup: async () => [{ address: calls++ === 0 ? '127.0.0.1' : '10.255.255.1', family: 4 }],
    });
    const page = await rebinding.loadPage(`http://rebind.test:${publicSite.port}/`, { ignoreRobots: true });
    expect(page.title).toBe('public');
    expect(calls).toBe(1);
  });
});

describe('address classification', () => {
  it('knows public from non-public addresses', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
    const expected: Record<string, string> = {
      '127.0.0.1': 'loopback',
      '10.1.2.3': 'private',
      '172.16.0.1': 'private',
      '192.168.0.1': 'private',
      '100.64.0.1': 'carrier_nat',
      '169.254.169.254': 'link_local',
      '::1': 'loopback',
      '::': 'unspecified',
      'fd12:3456::1': 'unique_local',
      'fe80::1%eth0': 'link_local',
      'ff02::1': 'multicast',
      '::ffff:10.0.0.1': 'private',
      '::ffff:7f00:1': 'loopback',
      'not-an-ip': 'invalid',
    };
    for (const [address, range] of Object.entries(expected)) expect(blockedRange(address), address).toBe(range);
  });
});
