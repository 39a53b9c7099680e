/**
 * bench:refresh — what a refresh of a site costs when few pages changed: a local HTTP server of
 * 200 pages listed in a sitemap, 5 of them edited after the first sync. The same re-sync runs twice
 * in one run: with a loader that can only crawl in full (`crawlSite`, as every re-sync did before
 * conditional requests), with the loader as it is (`recrawlSite`: If-None-Match, body hash), and
 * with the loader as it is on a sitemap that gives each page's `<lastmod>` (the time of its last
 * edit): pages whose lastmod is older than their last request are not requested at all.
 * Counted: page requests and 304s, bytes the server sent, pages parsed, embedding calls and texts.
 *
 *   npm run bench:refresh -- [--pages 200] [--changed 5]
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hnswIndex } from '../adapters/hnsw/index.js';
import { localEmbeddings } from '../adapters/local/index.js';
import { sqliteStore } from '../adapters/sqlite/index.js';
import { webLoader } from '../adapters/web/index.js';
import { createRagdesk, type Embeddings, type WebLoader } from '../src/index.js';
import { flags, printTable, writeResult, type Row } from './lib/report.js';

const args = flags(process.argv.slice(2));
const PAGES = Number(args.get('pages') ?? 200);
const CHANGED = Number(args.get('changed') ?? 5);

interface Traffic {
  pageRequests: number;
  notModified: number;
  bytes: number;
}

/** A site of `PAGES` pages with ETags; `edit` changes a page's text, its ETag and (with `lastmods`) its sitemap `<lastmod>`. */
async function startSite(lastmods: boolean) {
  const versions = new Map<string, number>(Array.from({ length: PAGES }, (_, i) => [`/page-${i}`, 1]));
  const editedAt = new Map<string, string>([...versions.keys()].map((path) => [path, '2026-01-01']));
  const traffic: Traffic = { pageRequests: 0, notModified: 0, bytes: 0 };
  const body = (path: string): string => {
    const n = Number(path.slice(6));
    const paragraphs = Array.from(
      { length: 12 },
      (_, p) =>
        `<p>Section ${p} of page ${n} (version ${versions.get(path)}): notes on topic ${(n * 7 + p) % 97}, with enough words to make a chunk of its own.</p>`,
    ).join('');
    return `<html><head><title>Page ${n}</title></head><body><nav>menu</nav><main><h1>Page ${n}</h1>${paragraphs}</main></body></html>`;
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '/').split('?')[0]!;
    const send = (status: number, headers: Record<string, string>, text = ''): void => {
      traffic.bytes += Buffer.byteLength(text);
      response.writeHead(status, headers).end(text);
    };
    if (path === '/robots.txt') return send(404, { 'content-type': 'text/plain' });
    if (path === '/sitemap.xml') {
      const { port } = server.address() as AddressInfo;
      const lastmod = (page: string) => (lastmods ? `<lastmod>${editedAt.get(page)}</lastmod>` : '');
      const urls = [...versions.keys()].map((page) => `<url><loc>http://127.0.0.1:${port}${page}</loc>${lastmod(page)}</url>`).join('');
      return send(
        200,
        { 'content-type': 'application/xml' },
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`,
      );
    }
    if (!versions.has(path)) return send(404, { 'content-type': 'text/plain' }, 'gone');
    traffic.pageRequests++;
    const etag = `"${path}-v${versions.get(path)}"`;
    if (request.headers['if-none-match'] === etag) {
      traffic.notModified++;
      return send(304, { etag });
    }
    send(200, { 'content-type': 'text/html; charset=utf-8', etag }, body(path));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    traffic,
    edit: (path: string) => {
      versions.set(path, (versions.get(path) ?? 0) + 1);
      editedAt.set(path, new Date().toISOString());
    },
    reset: () => Object.assign(traffic, { pageRequests: 0, notModified: 0, bytes: 0 }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The embedder, counting calls and texts of documents. */
function counting(inner: Embeddings) {
  const counts = { calls: 0, texts: 0 };
  const embeddings: Embeddings = {
    model: inner.model,
    specificationVersion: 'v1',
    dimensions: inner.dimensions,
    maxBatchSize: inner.maxBatchSize,
    async embed(batch, options) {
      if (options.purpose === 'document') {
        counts.calls++;
        counts.texts += batch.length;
      }
      return inner.embed(batch, options);
    },
  };
  return { embeddings, counts };
}

/** The loader without its conditional methods: every re-sync crawls and parses in full. */
function fullCrawlOnly(loader: WebLoader): WebLoader {
  return {
    name: loader.name,
    specificationVersion: loader.specificationVersion,
    loadPage: (url, options) => loader.loadPage(url, options),
    crawlSite: (options) => loader.crawlSite(options),
    ...(loader.close ? { close: () => loader.close!() } : {}),
  };
}

async function measure(label: string, conditional: boolean, lastmods = false): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'ragdesk-bench-refresh-'));
  const site = await startSite(lastmods);
  const loader = webLoader({ allowPrivateUrls: ['127.0.0.1'] });
  const { embeddings, counts } = counting(localEmbeddings());
  const ragdesk = createRagdesk({
    store: sqliteStore({ path: join(dir, 'ragdesk.db') }),
    index: hnswIndex({ dir: join(dir, 'indexes') }),
    embeddings,
    web: conditional ? loader : fullCrawlOnly(loader),
  });
  try {
    const datastore = await ragdesk.datastores.create({ name: 'refresh' });
    const created = await ragdesk.datasources.create({
      type: 'web_site',
      datastoreId: datastore.id,
      config: { sitemap: `${site.origin}/sitemap.xml`, max_pages: PAGES },
    });
    const first = await ragdesk.datasources.waitUntilSettled(created.id, 600_000);
    if (first.status !== 'synched') throw new Error(`first sync ended ${first.status}: ${first.error}`);
    for (let i = 0; i < CHANGED; i++) site.edit(`/page-${Math.floor((i * PAGES) / CHANGED)}`);
    site.reset();
    Object.assign(counts, { calls: 0, texts: 0 });
    const started = performance.now();
    await ragdesk.datasources.sync(created.id);
    const after = await ragdesk.datasources.waitUntilSettled(created.id, 600_000);
    const ms = performance.now() - started;
    if (after.status !== 'synched') throw new Error(`refresh ended ${after.status}: ${after.error}`);
    const crawl = await ragdesk.datasources.crawl(created.id);
    return {
      loader: label,
      'page requests': site.traffic.pageRequests,
      '304s': site.traffic.notModified,
      'bytes sent': site.traffic.bytes,
      'pages parsed': crawl?.counts.fetched ?? 0,
      'embed calls': counts.calls,
      'texts embedded': counts.texts,
      changed: crawl?.lastResult?.changed ?? 0,
      unchanged: crawl?.lastResult?.unchanged ?? 0,
      ms: Math.round(ms),
    };
  } finally {
    await ragdesk.close();
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const before = await measure('full re-crawl (crawlSite)', false);
const after = await measure('conditional (recrawlSite)', true);
const withLastmod = await measure('conditional + sitemap lastmod', true, true);
const rows = [before, after, withLastmod];
printTable(`Refresh of a ${PAGES}-page local site with ${CHANGED} pages changed`, rows);
const ratio = (to: Row, key: string) => Number(((to[key] as number) / Math.max(1, before[key] as number)).toFixed(3));
writeResult('refresh', {
  pages: PAGES,
  changed: CHANGED,
  rows,
  afterOverBefore: {
    bytes: ratio(after, 'bytes sent'),
    pagesParsed: ratio(after, 'pages parsed'),
    textsEmbedded: ratio(after, 'texts embedded'),
    ms: ratio(after, 'ms'),
  },
  lastmodOverBefore: {
    requests: ratio(withLastmod, 'page requests'),
    bytes: ratio(withLastmod, 'bytes sent'),
    ms: ratio(withLastmod, 'ms'),
  },
});
