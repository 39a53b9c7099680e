/**
 * The local web site the crash worker ingests, served by the parent on 127.0.0.1 (it must outlive
 * the killed child and serve the recovery too). Content drifts with time: every 700 ms an epoch
 * passes, some pages change their text and each sitemap lists a different subset, so re-syncs add,
 * change and remove pages.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const PAGE_COUNT = 30;
export const SITE_COUNT = 4;
const EPOCH_MS = 700;

export interface CrashSite {
  origin: string;
  close(): Promise<void>;
}

function epoch(): number {
  return Math.floor(Date.now() / EPOCH_MS);
}

export function pageHtml(page: number): string {
  // Every third page changes with the epoch; the others are stable (re-syncs find them unchanged).
  const version = page % 3 === 0 ? epoch() : 0;
  const sentences = Array.from(
    { length: 3 + (page % 5) },
    (_, i) => `Page ${page} sentence ${i} about topic ${(page * 7 + i) % 11} version ${version}.`,
  );
  return `<!doctype html><html><head><title>Page ${page}</title></head><body><nav>menu</nav><main><h1>Page ${page}</h1><p>${sentences.join(' ')}</p></main></body></html>`;
}

function sitemap(origin: string, site: number): string {
  const now = epoch();
  const pages: number[] = [];
  for (let i = 0; i < 8; i++) {
    const page = (site * 6 + i) % PAGE_COUNT;
    // One page in four drops in and out with the epoch.
    if ((page + now) % 4 !== 0 || i < 2) pages.push(page);
  }
  const urls = pages.map((page) => `<url><loc>${origin}/p/${page}</loc></url>`).join('');
  return `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`;
}

export async function startCrashSite(): Promise<CrashSite> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] as string;
    const site = /^\/s\/(\d+)\/sitemap\.xml$/.exec(path);
    const page = /^\/p\/(\d+)$/.exec(path);
    // A little latency keeps syncs in flight long enough to be interrupted.
    const delay = Math.floor(Math.random() * 15);
    setTimeout(() => {
      if (site && Number(site[1]) < SITE_COUNT) {
        response.writeHead(200, { 'content-type': 'application/xml' }).end(sitemap(origin, Number(site[1])));
      } else if (page && Number(page[1]) < PAGE_COUNT) {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pageHtml(Number(page[1])));
      } else {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      }
    }, delay);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
