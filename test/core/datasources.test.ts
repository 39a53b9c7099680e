import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileLoading } from '../../adapters/loaders/index.js';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { localEmbeddings } from '../../adapters/local/index.js';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import { webLoader } from '../../adapters/web/index.js';
import { createRagdesk, RagdeskError, type Ragdesk, type UsageLimits } from '../../src/index.js';
import type { Embeddings } from '../../src/ports/embeddings.js';
import { buildFixtures, PLANTED } from '../../fixtures/make-fixtures.js';
import { startHttpServer, type TestHttpServer } from '../helpers/http-server.js';
import { countingEmbeddings, tempDir } from '../helpers/setups.js';

const FIXTURES = buildFixtures();

function open(dir: string, embeddings: Embeddings = localEmbeddings(), maxBytes?: number, usage?: UsageLimits): Ragdesk {
  return createRagdesk({
    ...(usage ? { usage } : {}),
    ...sqliteStores({ path: join(dir, 'ragdesk.db') }),
    index: hnswIndex({ dir: join(dir, 'indexes') }),
    embeddings,
    files: fileLoading(maxBytes === undefined ? {} : { maxBytes }),
    web: webLoader({ allowPrivateNetwork: true, timeoutMs: 5_000 }),
    jobs: { retry: { baseDelayMs: 20, maxAttempts: 3 } },
  });
}

/** A small site: pages are edited or removed by the test between syncs. */
function site() {
  const pages = new Map<string, string>([
    ['/a', '<title>Alpha</title><main><p>Alpha page about ALPHASITE-11 glaciers and fjords.</p></main>'],
    ['/b', '<title>Beta</title><main><p>Beta page about BETASITE-22 volcanoes.</p></main>'],
    ['/c', '<title>Gamma</title><main><p>Gamma page about GAMMASITE-33 coral reefs.</p></main>'],
  ]);
  let delayMs = 0;
  let failNext = 0;
  return {
    pages,
    setDelay: (ms: number) => (delayMs = ms),
    failTimes: (count: number) => (failNext = count),
    handler: (request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse, server: TestHttpServer) => {
      const path = (request.url ?? '/').split('?')[0] as string;
      if (path === '/robots.txt') return response.writeHead(404).end();
      if (path === '/sitemap.xml') {
        const urls = [...pages.keys()].map((page) => `<url><loc>${server.origin}${page}</loc></url>`).join('');
        response.writeHead(200, { 'content-type': 'application/xml' });
        return response.end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`);
      }
      if (failNext > 0) {
        failNext--;
        return response.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
      }
      const body = pages.get(path);
      setTimeout(() => {
        if (body === undefined) return response.writeHead(404, { 'content-type': 'text/plain' }).end('gone');
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<html><body>${body}</body></html>`);
      }, delayMs);
    },
  };
}

describe('datasources on the embedded default', () => {
  let temp: ReturnType<typeof tempDir>;
  let ragdesk: Ragdesk;
  let server: TestHttpServer;
  let web: ReturnType<typeof site>;
  beforeEach(async () => {
    temp = tempDir();
    web = site();
    server = await startHttpServer(web.handler);
    ragdesk = open(temp.dir);
  });
  afterEach(async () => {
    await ragdesk.close();
    await server.close();
    temp.remove();
  });

  it('syncs a PDF file in the background and cites its pages', async () => {
    const datastore = await ragdesk.datastores.create({ name: 'files' });
    const created = await ragdesk.datasources.create({
      type: 'file',
      datastoreId: datastore.id,
      file: { bytes: FIXTURES['sample.pdf']!, fileName: 'sample.pdf' },
      custom_id: 'tenant-1',
    });
    expect(created.status).toBe('pending');
    const done = await ragdesk.datasources.waitUntilSettled(created.id);
    expect(done).toMatchObject({ status: 'synched', name: 'sample.pdf', customId: 'tenant-1', error: null });
    expect(done.config.total_pages).toBe(3);
    const [top] = await datastore.query({ query: PLANTED.pdfPages[1], topK: 1, filters: { custom_ids: ['tenant-1'] } });
    expect(top?.datasource_id).toBe(created.id);
    expect(top?.page_number).toBe(2);
    const history = (await ragdesk.datasources.history(created.id)).map((event) => event.to);
    expect(history).toEqual(['pending', 'running', 'synched']);
  });

  it('repeats the CSV header row at the top of every chunk', async () => {
    const datastore = await ragdesk.datastores.create({ name: 'csv' });
    const created = await ragdesk.datasources.create({
      type: 'file',
      datastoreId: datastore.id,
      file: { bytes: FIXTURES['sample.csv']!, fileName: 'people.csv' },
    });
    const done = await ragdesk.datasources.waitUntilSettled(created.id);
    expect(done.status).toBe('synched');
    expect(done.nbChunks).toBeGreaterThan(1);
    const fragments = await datastore.query({ query: 'person France', topK: 50, mode: 'lexical' });
    expect(fragments.length).toBe(done.nbChunks);
    for (const fragment of fragments) expect(fragment.text.startsWith('| id | name | city |')).toBe(true);
    const [last] = await datastore.query({ query: PLANTED.csvLast, topK: 1 });
    expect(last?.text).toContain('| id | name | city |');
  });

  it('refuses unsupported and oversized files before storing anything', async () => {
    const datastore = await ragdesk.datastores.create({ name: 'files' });
    const binary = new Uint8Array([0x00, 0xff, 0x10, 0x80, 0x00, 0x01, 0xfe, 0x7f]);
    await expect(
      ragdesk.datasources.create({ type: 'file', datastoreId: datastore.id, file: { bytes: binary, fileName: 'x.bin' } }),
    ).rejects.toMatchObject({ code: 'unsupported_media_type' });
    const small = open(join(temp.dir, 'small'), localEmbeddings(), 64);
    try {
      const other = await small.datastores.create({ name: 'small' });
      await expect(
        small.datasources.create({
          type: 'file',
          datastoreId: other.id,
          file: { bytes: new Uint8Array(200).fill(0x61), fileName: 'big.txt' },
        }),
      ).rejects.toMatchObject({ code: 'payload_too_large' });
      expect(await small.datasources.list(other.id)).toEqual([]);
    } finally {
      await small.close();
    }
    expect(await ragdesk.datasources.list(datastore.id)).toEqual([]);
    await expect(
      ragdesk.datasources.create({ type: 'web_page', datastoreId: datastore.id, config: { source_url: 'file:///etc/passwd' } }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('syncs a web page and names it after its title', async () => {
    const datastore = await ragdesk.datastores.create({ name: 'web' });
    const created = await ragdesk.datasources.create({
      type: 'web_page',
      datastoreId: datastore.id,
      config: { source_url: `${server.origin}/b` },
    });
    const done = await ragdesk.datasources.waitUntilSettled(created.id);
    expect(done).toMatchObject({ status: 'synched', name: 'Beta' });
    const [top] = await datastore.query({ query: 'BETASITE-22 volcanoes', topK: 1 });
    expect(top?.source).toBe(`${server.origin}/b`);
  });

  it('syncs a whole site into child pages, then adds, updates and removes pages on re-sync', async () => {
    const embeddings = countingEmbeddings(localEmbeddings());
    await ragdesk.close();
    ragdesk = open(temp.dir, embeddings);
    const datastore = await ragdesk.datastores.create({ name: 'site' });
    const siteSource = await ragdesk.datasources.create({
      type: 'web_site',
      datastoreId: datastore.id,
      config: { sitemap: `${server.origin}/sitemap.xml` },
    });
    expect((await ragdesk.datasources.waitUntilSettled(siteSource.id)).status).toBe('synched');
    const children = async () => (await ragdesk.datasources.list(datastore.id)).filter((ds) => ds.groupId === siteSource.id);
    expect((await children()).map((ds) => ds.name).sort()).toEqual(['Alpha', 'Beta', 'Gamma']);

    web.pages.delete('/c');
    web.pages.set('/b', '<title>Beta</title><main><p>Beta page now about ZEPPELIN-44 airships.</p></main>');
    web.pages.set('/d', '<title>Delta</title><main><p>Delta page about DELTASITE-55 deserts.</p></main>');
    embeddings.texts.length = 0;
    await ragdesk.datasources.sync(siteSource.id);
    expect((await ragdesk.datasources.waitUntilSettled(siteSource.id)).status).toBe('synched');
    expect((await children()).map((ds) => ds.name).sort()).toEqual(['Alpha', 'Beta', 'Delta']);
    expect(embeddings.texts.join(' ')).not.toContain('ALPHASITE');
    expect(embeddings.texts.length).toBe(2);
    const gamma = await datastore.query({ query: 'GAMMASITE-33 coral reefs', topK: 5, mode: 'lexical' });
    expect(gamma).toEqual([]);
    const [zeppelin] = await datastore.query({ query: 'ZEPPELIN-44 airships', topK: 1, filters: { datasource_ids: [siteSource.id] } });
    expect(zeppelin?.datasource_name).toBe('Beta');
  });

  it('applies include and exclude patterns of a site config', async () => {
    const datastore = await ragdesk.datastores.create({ name: 'patterns' });
    const siteSource = await ragdesk.datasources.create({
      type: 'web_site',
      datastoreId: datastore.id,
      config: { sitemap: `${server.origin}/sitemap.xml`, exclude: ['*/b'] },
    });
    expect((await ragdesk.datasources.waitUntilSettled(siteSource.id)).status).toBe('synched');
    const names = (await ragdesk.datasources.list(datastore.id)).filter((ds) => ds.groupId === siteSource.id).map((ds) => ds.name);
    expect(names.sort()).toEqual(['Alpha', 'Gamma']);
  });

  it('retries a transient failure with backoff, and records a permanent one as error', async () => {
    const datastore = await ragdesk.datastores.create({ name: 'flaky' });
    web.failTimes(1);
    const flaky = await ragdesk.datasources.create({
      type: 'web_page',
      datastoreId: datastore.id,
      config: { source_url: `${server.origin}/a` },
    });
    expect((await ragdesk.datasources.waitUntilSettled(flaky.id)).status).toBe('synched');
    expect((await ragdesk.datasources.history(flaky.id)).map((event) => event.to)).toEqual([
      'pending',
      'running',
      'pending',
      'running',
      'synched',
    ]);

    const missing = await ragdesk.datasources.create({
      type: 'web_page',
      datastoreId: datastore.id,
      config: { source_url: `${server.origin}/nope` },
    });
    const failed = await ragdesk.datasources.waitUntilSettled(missing.id);
    expect(failed.status).toBe('error');
    expect(failed.error).toMatch(/404|not found/i);
  });

  it('resumes a sync interrupted by close after reopening', async () => {
    const datastore = await ragdesk.datastores.create({ name: 'restart' });
    web.setDelay(1_500);
    const running = new Promise<void>((resolve) => ragdesk.datasources.events.on('status', (event) => event.to === 'running' && resolve()));
    const created = await ragdesk.datasources.create({
      type: 'web_page',
      datastoreId: datastore.id,
      config: { source_url: `${server.origin}/c` },
    });
    await running;
    await ragdesk.close();
    web.setDelay(0);
    ragdesk = open(temp.dir);
    const done = await ragdesk.datasources.waitUntilSettled(created.id);
    expect(done.status).toBe('synched');
    // Interrupted, parked as pending, resumed: the history shows both runs.
    expect((await ragdesk.datasources.history(created.id)).map((event) => event.to)).toEqual([
      'pending',
      'running',
      'pending',
      'running',
      'synched',
    ]);
    const again = await ragdesk.datastores.get(datastore.id);
    const [top] = await again.query({ query: 'GAMMASITE-33 coral', topK: 1, mode: 'vector' });
    expect(top?.datasource_id).toBe(created.id);
  });

  it('deleting a datastore stops the syncs of its datasources', async () => {
    const datastore = await ragdesk.datastores.create({ name: 'gone' });
    web.setDelay(800);
    const settled: string[] = [];
    ragdesk.datasources.events.on('status', (event) => settled.push(event.to));
    await ragdesk.datasources.create({ type: 'web_page', datastoreId: datastore.id, config: { source_url: `${server.origin}/a` } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await ragdesk.datastores.delete(datastore.id);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(settled).not.toContain('synched');
    expect(settled).not.toContain('error');
    expect(await ragdesk.datastores.list()).toEqual([]);
    // A sync left running would have reopened (recreated) the dropped vector index.
    const indexDirs = existsSync(join(temp.dir, 'indexes')) ? readdirSync(join(temp.dir, 'indexes')) : [];
    expect(indexDirs.filter((name) => name.includes(datastore.id))).toEqual([]);
  });

  it('deleting a datasource stops its sync and leaves nothing behind', async () => {
    const datastore = await ragdesk.datastores.create({ name: 'delete' });
    web.setDelay(800);
    const created = await ragdesk.datasources.create({
      type: 'web_page',
      datastoreId: datastore.id,
      config: { source_url: `${server.origin}/a` },
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await ragdesk.datasources.delete(created.id);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await ragdesk.datasources.list(datastore.id)).toEqual([]);
    expect(await datastore.query({ query: 'ALPHASITE-11 glaciers', mode: 'lexical' })).toEqual([]);
    await expect(ragdesk.datasources.get(created.id)).rejects.toBeInstanceOf(RagdeskError);
  });

  it('ends a sync over a usage limit in usage_limit_reached with nothing searchable', async () => {
    await ragdesk.close();
    ragdesk = open(temp.dir, localEmbeddings(), undefined, { maxPagesPerSite: 2, maxStoredTokens: 40, maxFileBytes: 100_000 });
    const datastore = await ragdesk.datastores.create({ name: 'limits' });
    const siteSource = await ragdesk.datasources.create({
      type: 'web_site',
      datastoreId: datastore.id,
      config: { sitemap: `${server.origin}/sitemap.xml` },
    });
    const site = await ragdesk.datasources.waitUntilSettled(siteSource.id);
    expect(site.status).toBe('usage_limit_reached');
    expect(site.error).toMatch(/more than 2 pages/);
    expect((await ragdesk.datasources.list(datastore.id)).filter((ds) => ds.groupId === siteSource.id)).toEqual([]);

    const pdf = await ragdesk.datasources.create({
      type: 'file',
      datastoreId: datastore.id,
      file: { bytes: FIXTURES['sample.pdf']!, fileName: 'sample.pdf' },
    });
    const overTokens = await ragdesk.datasources.waitUntilSettled(pdf.id);
    expect(overTokens.status).toBe('usage_limit_reached');
    expect(overTokens.nbChunks).toBe(0);
    expect(await datastore.query({ query: PLANTED.pdfPages[0], mode: 'lexical' })).toEqual([]);
    expect(await datastore.query({ query: 'ALPHASITE-11', mode: 'lexical' })).toEqual([]);

    const big = await ragdesk.datasources.create({
      type: 'file',
      datastoreId: datastore.id,
      file: { bytes: new Uint8Array(150_000).fill(0x62), fileName: 'big.txt' },
    });
    expect((await ragdesk.datasources.waitUntilSettled(big.id)).status).toBe('usage_limit_reached');
  });

  it('ends a site whose pages together pass the text limit in error at that page, with nothing stored', async () => {
    await ragdesk.close();
    // Each page alone is under the limit; any two together are over it.
    ragdesk = open(temp.dir, localEmbeddings(), undefined, { maxExtractedChars: 80 });
    const datastore = await ragdesk.datastores.create({ name: 'site text limit' });
    const siteSource = await ragdesk.datasources.create({
      type: 'web_site',
      datastoreId: datastore.id,
      config: { sitemap: `${server.origin}/sitemap.xml` },
    });
    const site = await ragdesk.datasources.waitUntilSettled(siteSource.id);
    expect(site.status).toBe('error');
    expect(site.error).toMatch(/more than 80 characters of text \(2 pages read\).*usage\.maxExtractedChars/);
    // The crawl that stopped is not shown as under way.
    const crawl = await ragdesk.datasources.crawl(siteSource.id);
    expect(crawl?.finishedAt).not.toBeNull();
    expect(crawl?.lastResult).toBeNull();
    expect((await ragdesk.datasources.list(datastore.id)).filter((ds) => ds.groupId === siteSource.id)).toEqual([]);
    expect(await datastore.query({ query: 'ALPHASITE-11', mode: 'lexical' })).toEqual([]);

    const page = await ragdesk.datasources.create({
      type: 'web_page',
      datastoreId: datastore.id,
      config: { source_url: `${server.origin}/a` },
    });
    expect((await ragdesk.datasources.waitUntilSettled(page.id)).status).toBe('synched');
  });

  it('counts stored tokens per owner: datastores of one owner share the budget, other owners have their own', async () => {
    await ragdesk.close();
    ragdesk = open(temp.dir, localEmbeddings(), undefined, { maxStoredTokens: 60 });
    const text = (word: string) => `${word} `.repeat(40).trim();
    const first = await ragdesk.datastores.create({ name: 'first' }, { ownerId: 'acme' });
    const second = await ragdesk.datastores.create({ name: 'second' }, { ownerId: 'acme' });
    const other = await ragdesk.datastores.create({ name: 'other' }, { ownerId: 'globex' });
    await first.upsert([{ text: text('alpha') }]);
    const refused = await second.upsert([{ text: text('beta') }]).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(RagdeskError);
    expect((refused as RagdeskError).code).toBe('usage_limit');
    expect((refused as RagdeskError).details).toMatchObject({ ownerId: 'acme', limit: 60 });
    expect(await second.query({ query: 'beta', mode: 'lexical' })).toEqual([]);
    await expect(other.upsert([{ text: text('gamma') }])).resolves.toMatchObject({ ids: [expect.any(String)] });
  });
});
