import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../../adapters/cli/serve-command.js';
import { UsageError } from '../../../adapters/cli/io.js';
import { localEmbeddings } from '../../../adapters/local/index.js';
import { exactIndex, memoryStore } from '../../../adapters/memory/index.js';
import { webLoader } from '../../../adapters/web/index.js';
import { RagdeskError } from '../../../src/errors.js';
import { createRagdesk } from '../../../src/index.js';
import { startHttpServer, type TestHttpServer } from '../../helpers/http-server.js';

async function failureOf(promise: Promise<unknown>): Promise<RagdeskError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(RagdeskError.isInstance(error)).toBe(true);
  return error as RagdeskError;
}

/** Every name resolves to the local test server. */
const toLoopback = (): Promise<Array<{ address: string; family: 4 }>> => Promise.resolve([{ address: '127.0.0.1', family: 4 }]);

describe('allowPrivateUrls', () => {
  let local: TestHttpServer;

  beforeAll(async () => {
    local = await startHttpServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<title>intranet</title><p>internal page</p>');
    });
  });
  afterAll(() => local.close());

  it('refuses a loopback URL by default, naming the option that would allow it', async () => {
    const error = await failureOf(webLoader({ timeoutMs: 2_000 }).loadPage(`${local.origin}/`, { ignoreRobots: true }));
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain('allowPrivateUrls');
    expect(error.message).toContain('--allow-private-urls');
    expect(error.details).toMatchObject({ option: 'allowPrivateUrls', range: 'loopback' });
    expect(local.requests).toEqual([]);
  });

  it('reaches an address inside a listed block, and nothing outside it', async () => {
    const page = await webLoader({ allowPrivateUrls: ['127.0.0.0/8'] }).loadPage(`${local.origin}/a`, { ignoreRobots: true });
    expect(page.title).toBe('intranet');
    const single = await webLoader({ allowPrivateUrls: ['127.0.0.1'] }).loadPage(`${local.origin}/b`, { ignoreRobots: true });
    expect(single.title).toBe('intranet');
    const other = await failureOf(
      webLoader({ allowPrivateUrls: ['10.0.0.0/8', '::1'] }).loadPage(`${local.origin}/c`, { ignoreRobots: true }),
    );
    expect(other.code).toBe('forbidden');
    expect(local.requests).toEqual(['/a', '/b']);
  });

  it('allows a listed host name (and *. sub-domains) whatever it resolves to, and no other name', async () => {
    const loader = webLoader({ allowPrivateUrls: ['wiki.internal', '*.corp.test'], lookup: toLoopback });
    expect((await loader.loadPage(`http://wiki.internal:${local.port}/w`, { ignoreRobots: true })).title).toBe('intranet');
    expect((await loader.loadPage(`http://docs.corp.test:${local.port}/d`, { ignoreRobots: true })).title).toBe('intranet');
    const refused = await failureOf(loader.loadPage(`http://evil.test:${local.port}/e`, { ignoreRobots: true }));
    expect(refused.code).toBe('forbidden');
    const lookalike = await failureOf(loader.loadPage(`http://notcorp.test:${local.port}/e`, { ignoreRobots: true }));
    expect(lookalike.code).toBe('forbidden');
    expect(local.requests.filter((path) => path === '/e')).toEqual([]);
  });

  it('matches an IPv4 block against the IPv4-mapped IPv6 form', async () => {
    const page = await webLoader({ allowPrivateUrls: ['127.0.0.1/32'] }).loadPage(`http://[::ffff:127.0.0.1]:${local.port}/m`, {
      ignoreRobots: true,
    });
    expect(page.title).toBe('intranet');
  });

  it('rejects an entry that is neither a block, an address nor a host name, naming it', () => {
    for (const bad of ['10.0.0.0/33', 'http://x.test/', 'a b', '']) {
      expect(() => webLoader({ allowPrivateUrls: [bad] })).toThrow(/allowPrivateUrls\[0\]/);
    }
  });

  it("ends a datasource on a refused address in error, the datasource's error naming the option", async () => {
    const ragdesk = createRagdesk({
      store: memoryStore(),
      index: exactIndex(),
      embeddings: localEmbeddings(),
      web: webLoader({ timeoutMs: 2_000 }),
    });
    try {
      const datastore = await ragdesk.datastores.create({ name: 'refused' });
      for (const created of [
        await ragdesk.datasources.create({ type: 'web_page', datastoreId: datastore.id, config: { source_url: `${local.origin}/page` } }),
        await ragdesk.datasources.create({ type: 'web_site', datastoreId: datastore.id, config: { source_url: `${local.origin}/` } }),
      ]) {
        const settled = await ragdesk.datasources.waitUntilSettled(created.id, 20_000);
        expect(settled.status).toBe('error');
        expect(settled.error).toContain('allowPrivateUrls');
      }
      expect(local.requests.filter((path) => path === '/page' || path === '/')).toEqual([]);
    } finally {
      await ragdesk.close();
    }
  });

  it('is set by ragdesk serve --allow-private-urls, a bad entry a usage error', () => {
    expect(parseServeArgs(['--allow-private-urls', '127.0.0.1, 10.0.0.0/8,wiki.internal'], '.').allowPrivateUrls).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      'wiki.internal',
    ]);
    expect(parseServeArgs([], '.').allowPrivateUrls).toEqual([]);
    expect(() => parseServeArgs(['--allow-private-urls', '10.0.0.0/99'], '.')).toThrow(UsageError);
  });
});
