import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { localEmbeddings } from '../../adapters/local/index.js';
import { sqliteStore } from '../../adapters/sqlite/index.js';
import { webLoader } from '../../adapters/web/index.js';
import { createRagdesk, type Ragdesk } from '../../src/index.js';
import type { JobClock } from '../../src/datasources/job-runner.js';
import { startHttpServer, type TestHttpServer } from '../helpers/http-server.js';
import { countingEmbeddings, tempDir } from '../helpers/setups.js';

// Counts the page extractions (the loader parses on the calling thread here, `parser: 'main'`).
const parsed = vi.hoisted(() => ({ urls: [] as string[] }));
vi.mock('../../adapters/loaders/html/extract-html.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../adapters/loaders/html/extract-html.js')>();
  return {
    ...actual,
    extractHtml: (...args: Parameters<typeof actual.extractHtml>) => {
      parsed.urls.push(String(args[1]?.pageUrl));
      return actual.extractHtml(...args);
    },
  };
});

/** A clock the test moves, and the runner's wake-up timer the test fires (no real waiting). */
function testClock(): JobClock & { advance(ms: number): void; fire(): void } {
  let now = Date.now();
  const timers = new Map<number, () => void>();
  let next = 0;
  return {
    now: () => now,
    setTimer(wake) {
      timers.set(++next, wake);
      return next;
    },
    clearTimer(handle) {
      timers.delete(handle as number);
    },
    advance(ms) {
      now += ms;
    },
    fire() {
      const due = [...timers.values()];
      timers.clear();
      for (const wake of due) wake();
    },
  };
}

interface SiteOptions {
  /** Answer If-None-Match with 304 (else the same body again, 200). */
  etags: boolean;
}

/** The sitemap's `<lastmod>` per path (a path without one is listed without). */
type Lastmods = Map<string, string>;

/** Five pages listed in a sitemap; the test edits them. Records each page request and its validators. */
function testSite(options: SiteOptions, lastmods: Lastmods = new Map()) {
  const pages = new Map<string, string>(
    ['/p1', '/p2', '/p3', '/p4', '/p5'].map((path, index) => [path, `Page ${index + 1} about REFRESH-${index + 1} and its own topic.`]),
  );
  const versions = new Map<string, number>([...pages.keys()].map((path) => [path, 1]));
  const requests: Array<{ path: string; ifNoneMatch: string | undefined; status: number }> = [];
  let hold: Promise<void> | undefined;
  const handler = (request: IncomingMessage, response: ServerResponse, server: TestHttpServer): void => {
    const path = (request.url ?? '/').split('?')[0]!;
    if (path === '/robots.txt') return void response.writeHead(404).end();
    if (path === '/sitemap.xml') {
      const urls = [...pages.keys()]
        .map((page) => {
          const lastmod = lastmods.get(page);
          return `<url><loc>${server.origin}${page}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ''}</url>`;
        })
        .join('');
      response.writeHead(200, { 'content-type': 'application/xml' });
      return void response.end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`);
    }
    const text = pages.get(path);
    const answer = (): void => {
      if (text === undefined) {
        requests.push({ path, ifNoneMatch: request.headers['if-none-match'], status: 404 });
        return void response.writeHead(404, { 'content-type': 'text/plain' }).end('gone');
      }
      const etag = `"${path}-v${versions.get(path)}"`;
      const notModified = options.etags && request.headers['if-none-match'] === etag;
      requests.push({ path, ifNoneMatch: request.headers['if-none-match'], status: notModified ? 304 : 200 });
      if (notModified) return void response.writeHead(304, { etag }).end();
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...(options.etags ? { etag } : {}) });
      response.end(`<html><head><title>${path}</title></head><body><main><p>${text}</p></main></body></html>`);
    };
    if (hold) void hold.then(answer);
    else answer();
  };
  return {
    pages,
    requests,
    handler,
    edit(path: string, text: string) {
      pages.set(path, text);
      versions.set(path, (versions.get(path) ?? 0) + 1);
    },
    /** Holds page answers until the returned function is called. */
    holdPages(): () => void {
      let release!: () => void;
      hold = new Promise<void>((resolve) => (release = resolve));
      return () => {
        hold = undefined;
        release();
      };
    },
  };
}

describe('site refreshes: conditional requests and schedules', () => {
  let temp: ReturnType<typeof tempDir>;
  let server: TestHttpServer | undefined;
  const opened: Ragdesk[] = [];

  beforeEach(() => {
    temp = tempDir('ragdesk-refresh-');
    parsed.urls.length = 0;
  });
  afterEach(async () => {
    for (const ragdesk of opened.splice(0)) await ragdesk.close();
    await server?.close();
    server = undefined;
    temp.remove();
  });

  function open(clock?: JobClock) {
    const embeddings = countingEmbeddings(localEmbeddings());
    const ragdesk = createRagdesk({
      store: sqliteStore({ path: join(temp.dir, 'ragdesk.db') }),
      index: hnswIndex({ dir: join(temp.dir, 'indexes') }),
      embeddings,
      web: webLoader({ allowPrivateUrls: ['127.0.0.1'], parser: 'main', timeoutMs: 10_000 }),
      jobs: { retry: { baseDelayMs: 20, maxAttempts: 3 }, ...(clock ? { clock } : {}) },
    });
    opened.push(ragdesk);
    return { ragdesk, embeddings };
  }

  async function createSite(ragdesk: Ragdesk, origin: string, refresh?: { every: string }) {
    const datastore = await ragdesk.datastores.create({ name: 'refresh' });
    const site = await ragdesk.datasources.create({
      type: 'web_site',
      datastoreId: datastore.id,
      config: { sitemap: `${origin}/sitemap.xml`, ...(refresh ? { refresh } : {}) },
    });
    return { datastore, site: await ragdesk.datasources.waitUntilSettled(site.id, 30_000) };
  }

  it('a re-sync asks with If-None-Match: a 304 costs one request and no parse or embedding; a changed page is re-embedded', async () => {
    const site = testSite({ etags: true });
    server = await startHttpServer(site.handler);
    const { ragdesk, embeddings } = open();
    const { datastore, site: first } = await createSite(ragdesk, server.origin);
    expect(first.status).toBe('synched');
    expect(parsed.urls).toHaveLength(5);
    expect(site.requests.every((request) => request.ifNoneMatch === undefined)).toBe(true);

    site.edit('/p2', 'Page 2 now about CHANGED-TOPIC-77 only.');
    site.requests.length = 0;
    parsed.urls.length = 0;
    embeddings.texts.length = 0;
    await ragdesk.datasources.sync(first.id);
    expect((await ragdesk.datasources.waitUntilSettled(first.id, 30_000)).status).toBe('synched');

    expect(site.requests.map((request) => request.path).sort()).toEqual(['/p1', '/p2', '/p3', '/p4', '/p5']);
    expect(site.requests.filter((request) => request.status === 304)).toHaveLength(4);
    expect(site.requests.every((request) => request.ifNoneMatch?.startsWith(`"${request.path}-v`))).toBe(true);
    expect(parsed.urls.map((url) => new URL(url).pathname)).toEqual(['/p2']);
    expect(embeddings.texts.length).toBeGreaterThan(0);
    expect(embeddings.texts.every((text) => text.includes('CHANGED-TOPIC-77'))).toBe(true);
    const crawl = await ragdesk.datasources.crawl(first.id);
    expect(crawl?.counts).toMatchObject({ fetched: 1, unchanged: 4, failed: 0 });
    expect(crawl?.lastResult).toEqual({ added: 0, changed: 1, removed: 0, unchanged: 4, failed: 0 });
    // The unchanged pages are still searchable, the changed one has its new text.
    const handle = await ragdesk.datastores.get(datastore.id);
    expect((await handle.query({ query: 'REFRESH-4', topK: 1 }))[0]?.text).toContain('REFRESH-4');
    expect((await handle.query({ query: 'CHANGED-TOPIC-77', topK: 1 }))[0]?.text).toContain('CHANGED-TOPIC-77');
  });

  it('a page whose sitemap <lastmod> is not after its last request is not requested; one without lastmod is asked conditionally', async () => {
    const lastmods: Lastmods = new Map(['/p1', '/p2', '/p3', '/p4'].map((path) => [path, '2020-01-01']));
    const site = testSite({ etags: true }, lastmods);
    server = await startHttpServer(site.handler);
    const { ragdesk, embeddings } = open();
    const { datastore, site: first } = await createSite(ragdesk, server.origin);
    expect(first.status).toBe('synched');
    expect(site.requests.map((request) => request.path).sort()).toEqual(['/p1', '/p2', '/p3', '/p4', '/p5']);
    const firstCrawl = await ragdesk.datasources.crawl(first.id);

    // /p2 changes after the first crawl started, and the sitemap says so.
    site.edit('/p2', 'Page 2 now about LASTMOD-TOPIC-42 only.');
    lastmods.set('/p2', new Date(Date.parse(firstCrawl!.startedAt!) + 1).toISOString());
    site.requests.length = 0;
    parsed.urls.length = 0;
    embeddings.texts.length = 0;
    await ragdesk.datasources.sync(first.id);
    expect((await ragdesk.datasources.waitUntilSettled(first.id, 30_000)).status).toBe('synched');

    // /p1, /p3 and /p4 are not requested at all; /p5 (no lastmod) gets its conditional request.
    expect(site.requests.map((request) => `${request.path} ${request.status}`).sort()).toEqual(['/p2 200', '/p5 304']);
    expect(parsed.urls.map((url) => new URL(url).pathname)).toEqual(['/p2']);
    expect(embeddings.texts.every((text) => text.includes('LASTMOD-TOPIC-42'))).toBe(true);
    const crawl = await ragdesk.datasources.crawl(first.id);
    expect(crawl?.counts).toMatchObject({ fetched: 1, unchanged: 4, failed: 0 });
    expect(crawl?.lastResult).toEqual({ added: 0, changed: 1, removed: 0, unchanged: 4, failed: 0 });
    const handle = await ragdesk.datastores.get(datastore.id);
    expect((await handle.query({ query: 'REFRESH-3', topK: 1 }))[0]?.text).toContain('REFRESH-3');
    expect((await handle.query({ query: 'LASTMOD-TOPIC-42', topK: 1 }))[0]?.text).toContain('LASTMOD-TOPIC-42');

    // The pages spared keep the time they were last requested: a third refresh spares them again.
    site.requests.length = 0;
    await ragdesk.datasources.sync(first.id);
    expect((await ragdesk.datasources.waitUntilSettled(first.id, 30_000)).status).toBe('synched');
    const paths = site.requests.map((request) => request.path);
    for (const spared of ['/p1', '/p3', '/p4']) expect(paths).not.toContain(spared);
    expect(paths).toContain('/p5');
    expect((await ragdesk.datasources.crawl(first.id))?.lastResult).toMatchObject({ changed: 0, removed: 0, added: 0 });
  });

  it('a server without validators sending the same body again costs no parse or embedding (body hash)', async () => {
    const site = testSite({ etags: false });
    server = await startHttpServer(site.handler);
    const { ragdesk, embeddings } = open();
    const { site: first } = await createSite(ragdesk, server.origin);
    parsed.urls.length = 0;
    embeddings.texts.length = 0;
    site.requests.length = 0;
    await ragdesk.datasources.sync(first.id);
    await ragdesk.datasources.waitUntilSettled(first.id, 30_000);
    expect(site.requests).toHaveLength(5);
    expect(parsed.urls).toEqual([]);
    expect(embeddings.texts).toEqual([]);
    expect((await ragdesk.datasources.crawl(first.id))?.lastResult).toMatchObject({ unchanged: 5, changed: 0 });
  });

  it('a web page datasource is asked for conditionally too', async () => {
    const site = testSite({ etags: true });
    server = await startHttpServer(site.handler);
    const { ragdesk, embeddings } = open();
    const datastore = await ragdesk.datastores.create({ name: 'page' });
    const page = await ragdesk.datasources.create({
      type: 'web_page',
      datastoreId: datastore.id,
      config: { source_url: `${server.origin}/p3` },
    });
    await ragdesk.datasources.waitUntilSettled(page.id, 30_000);
    parsed.urls.length = 0;
    embeddings.texts.length = 0;
    await ragdesk.datasources.sync(page.id);
    const again = await ragdesk.datasources.waitUntilSettled(page.id, 30_000);
    expect(again.status).toBe('synched');
    expect(again.nbChunks).toBeGreaterThan(0);
    expect(site.requests.map((request) => request.status)).toEqual([200, 304]);
    expect(parsed.urls).toEqual([]);
    expect(embeddings.texts).toEqual([]);
  });

  it('refreshes on schedule by the job clock, and schedules the next one', async () => {
    const site = testSite({ etags: true });
    server = await startHttpServer(site.handler);
    const clock = testClock();
    const { ragdesk } = open(clock);
    const { site: first } = await createSite(ragdesk, server.origin, { every: '2h' });
    const scheduled = await ragdesk.datasources.crawl(first.id);
    expect(Date.parse(scheduled!.nextRefreshAt!) - clock.now()).toBe(2 * 3_600_000);
    site.requests.length = 0;

    clock.advance(2 * 3_600_000 - 1_000);
    clock.fire();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(site.requests).toEqual([]); // not due yet

    clock.advance(1_000);
    const refreshed = new Promise<void>((resolve) =>
      ragdesk.datasources.events.on('status', (event) => event.datasourceId === first.id && event.to === 'synched' && resolve()),
    );
    clock.fire();
    await refreshed;
    expect(site.requests.filter((request) => request.status === 304)).toHaveLength(5);
    const after = await ragdesk.datasources.crawl(first.id);
    expect(after?.lastResult).toMatchObject({ unchanged: 5, changed: 0, added: 0 });
    expect(Date.parse(after!.nextRefreshAt!) - clock.now()).toBe(2 * 3_600_000);
  });

  it('a refresh falling due with a re-sync asked for at the same time runs once', async () => {
    const site = testSite({ etags: true });
    server = await startHttpServer(site.handler);
    const clock = testClock();
    const { ragdesk } = open(clock);
    const { site: created } = await createSite(ragdesk, server.origin, { every: 'hourly' });
    const statuses: string[] = [];
    ragdesk.datasources.events.on('status', (event) => event.datasourceId === created.id && statuses.push(event.to));
    site.requests.length = 0;
    clock.advance(3_600_000);
    // Both jobs are due when the runner next looks: the refresh and the re-sync.
    await ragdesk.datasources.sync(created.id);
    clock.fire();
    const settled = await ragdesk.datasources.waitUntilSettled(created.id, 30_000);
    expect(settled.status).toBe('synched');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(statuses.filter((status) => status === 'running')).toHaveLength(1);
    expect(site.requests.map((request) => request.path).sort()).toEqual(['/p1', '/p2', '/p3', '/p4', '/p5']);
    const crawl = await ragdesk.datasources.crawl(created.id);
    expect(Date.parse(crawl!.nextRefreshAt!) - clock.now()).toBe(3_600_000);
  });

  it('a refresh interrupted by a restart resumes once, and is never started twice at once', async () => {
    const site = testSite({ etags: true });
    server = await startHttpServer(site.handler);
    const clock = testClock();
    const first = open(clock);
    const { site: created } = await createSite(first.ragdesk, server.origin, { every: 'hourly' });
    site.requests.length = 0;

    const release = site.holdPages();
    clock.advance(3_600_000);
    const running = new Promise<void>((resolve) =>
      first.ragdesk.datasources.events.on('status', (event) => event.datasourceId === created.id && event.to === 'running' && resolve()),
    );
    clock.fire();
    await running;
    // Asked again while it runs: the running refresh is answered as it is, nothing new starts.
    clock.fire();
    expect((await first.ragdesk.datasources.sync(created.id)).status).toBe('running');
    await first.ragdesk.close();
    opened.splice(opened.indexOf(first.ragdesk), 1);
    release();

    const second = open(clock);
    const statuses: string[] = [];
    second.ragdesk.datasources.events.on('status', (event) => event.datasourceId === created.id && statuses.push(event.to));
    site.requests.length = 0;
    const settled = await second.ragdesk.datasources.waitUntilSettled(created.id, 30_000);
    expect(settled.status).toBe('synched');
    clock.fire();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(statuses.filter((status) => status === 'running')).toHaveLength(1);
    // Each page asked for once after the restart: one run, not two.
    expect(site.requests.map((request) => request.path).sort()).toEqual(['/p1', '/p2', '/p3', '/p4', '/p5']);
    const crawl = await second.ragdesk.datasources.crawl(created.id);
    expect(crawl?.lastResult).toMatchObject({ unchanged: 5 });
    expect(Date.parse(crawl!.nextRefreshAt!) - clock.now()).toBe(3_600_000);
  });
});
