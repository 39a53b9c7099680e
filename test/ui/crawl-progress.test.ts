import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer, type TestHttpServer } from '../helpers/http-server.js';
import { tempDir } from '../helpers/setups.js';
import { axeViolations } from './axe.js';
import { browserSkipReason, launchBrowser, readmeShot, shot, type Browser } from './browser.js';
import { startServe, type ServeProcess } from './serve-process.js';

const skip = browserSkipReason();
if (skip) console.log(`test/ui: browser tests skipped: ${skip}`);

const PAGES = 50;

/**
 * A local site of 50 pages: the home page links to the other 49. Every page answer is held until
 * the test releases it, so what the console shows at each step does not depend on speed.
 */
function heldSite() {
  const waiting = new Map<string, () => void>();
  const released = new Set<string>();
  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    const path = (request.url ?? '/').split('?')[0]!;
    if (path === '/robots.txt' || path === '/sitemap.xml') return void response.writeHead(404).end();
    const answer = (): void => {
      const links = path === '/' ? Array.from({ length: PAGES - 1 }, (_, i) => `<a href="/p${i + 1}">Page ${i + 1}</a>`).join(' ') : '';
      const title = path === '/' ? 'Home' : `Page ${path.slice(2)}`;
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>Text of ${title} for the crawl test.</p>${links}</main></body></html>`,
      );
    };
    if (released.has(path)) answer();
    else waiting.set(path, answer);
  };
  return {
    handler,
    release(paths: string[]) {
      for (const path of paths) {
        released.add(path);
        waiting.get(path)?.();
        waiting.delete(path);
      }
    },
  };
}

describe.skipIf(skip !== null)('a site crawl in the console, live (Chromium)', () => {
  let serve: ServeProcess;
  let browser: Browser;
  let site: TestHttpServer;
  const held = heldSite();
  const temp = tempDir('ragdesk-ui-crawl-');

  beforeAll(async () => {
    site = await startHttpServer(held.handler);
    serve = await startServe(['--data-dir', join(temp.dir, 'data'), '--owner', 'crawl-ui', '--allow-private-urls', '127.0.0.1'], {});
    browser = await launchBrowser();
  });
  afterAll(async () => {
    held.release(['/', ...Array.from({ length: PAGES - 1 }, (_, i) => `/p${i + 1}`)]);
    await browser?.close();
    await serve?.stop();
    await site?.close();
    temp.remove();
  });

  it('shows the counters move while the site syncs, then its pages with their status, at 1440×900 and 390×844, with no axe violation', async () => {
    const page = await browser.page({ width: 1440, height: 900 });
    await page.goto(serve.consoleUrl);
    await page.getByLabel('API key').fill(serve.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Datastores' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Local site');
    await page.getByRole('button', { name: 'Create datastore' }).click();
    await page.getByRole('link', { name: 'Local site' }).click();
    await page.getByRole('heading', { name: 'Local site' }).waitFor();

    await page.getByLabel('Web').selectOption('web_site');
    await page.getByLabel('URL').fill(`${site.origin}/`);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const row = page.locator(`tr[data-datasource="127.0.0.1:${site.port}"]`);
    await row.waitFor();
    const count = (name: string) => row.locator(`[data-count="${name}"]`).textContent();

    // Nothing answered yet: the crawl is under way with nothing fetched.
    await expect.poll(() => row.locator('[data-status]').getAttribute('data-status'), { timeout: 30_000 }).toBe('running');
    expect(await count('fetched')).toBe('0 fetched');

    // The home page and the first nine: ten fetched, shown while the site still syncs.
    held.release(['/', ...Array.from({ length: 9 }, (_, i) => `/p${i + 1}`)]);
    await expect.poll(() => count('fetched'), { timeout: 30_000 }).toBe('10 fetched');
    expect(await row.locator('[data-status]').getAttribute('data-status')).toBe('running');
    // The pages fetched so far are stored while the rest are held: the row's chunk count moves.
    await expect
      .poll(async () => Number(await row.locator('[data-chunks]').getAttribute('data-chunks')), { timeout: 30_000 })
      .toBeGreaterThan(0);
    expect(await row.locator('[data-status]').getAttribute('data-status')).toBe('running');
    expect(Number((await count('found'))?.split(' ')[0])).toBeGreaterThanOrEqual(10);
    await shot(page, 'crawl-live-1440');
    await readmeShot(page, 'crawl-progress', row);
    expect(await axeViolations(page)).toEqual([]);

    // The phone width, same tab (the key lives in this tab's sessionStorage).
    await page.setViewportSize({ width: 390, height: 844 });
    const narrow = page;
    await expect.poll(() => count('fetched')).toBe('10 fetched');
    await shot(narrow, 'crawl-live-390');
    expect(await axeViolations(narrow)).toEqual([]);
    const overflow = await narrow.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBeLessThanOrEqual(0);

    await page.setViewportSize({ width: 1440, height: 900 });

    // Everything else: the crawl ends with 50 fetched and the site synched.
    held.release(Array.from({ length: PAGES - 10 }, (_, i) => `/p${i + 10}`));
    await expect.poll(() => row.locator('[data-status]').getAttribute('data-status'), { timeout: 60_000 }).toBe('synched');
    expect(await count('fetched')).toBe('50 fetched');
    expect(await count('failed')).toBe('0 failed');
    await expect.poll(() => row.locator('[data-last-result]').textContent()).toContain('50 added');
    // Counted once: the site's count is its pages' sum, not that sum plus the pages again.
    const stats = (await (
      await fetch(
        `${serve.origin}/api/datasources?datastoreId=${encodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '')}&groupId=none&limit=10`,
        {
          headers: { authorization: `Bearer ${serve.key}` },
        },
      )
    ).json()) as { nbChunks: number }[];
    await expect.poll(async () => Number(await row.locator('[data-chunks]').getAttribute('data-chunks'))).toBe(stats[0]?.nbChunks);

    // The schedule is editable from the row; the next run appears.
    await row.getByLabel('Refresh').selectOption('daily');
    await expect.poll(() => row.textContent()).toContain('next ');

    // The pages list: every URL with its status, 50 a page.
    await row.getByRole('link', { name: 'Pages and errors' }).click();
    await page.getByRole('heading', { name: `Pages of 127.0.0.1:${site.port}` }).waitFor();
    await expect.poll(() => page.locator('tr[data-page-status="fetched"]').count()).toBe(50);
    expect(await page.getByRole('heading', { name: /URLs/ }).textContent()).toContain('(50)');
    // The list's address is the console's own: a reload shows it again.
    await page.reload();
    await expect.poll(() => page.locator('tr[data-page-status="fetched"]').count()).toBe(50);
    await shot(page, 'crawl-pages-1440');
    expect(await axeViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, 'crawl-pages-390');
    expect(await axeViolations(page)).toEqual([]);
    const pagesOverflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(pagesOverflow).toBeLessThanOrEqual(0);
    expect(page.errors).toEqual([]);
    expect(page.dialogs).toEqual([]);
  }, 240_000);
});
