/**
 * The operator's screens of the console (API keys, usage, a datastore of 10,000 datasources with
 * its totals and chunk viewer, search) in Chromium against `ragdesk serve`, at 1440×900 and
 * 390×844, each checked with axe (no serious or critical violation).
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../../fixtures/openai-server.js';
import { tempDir } from '../helpers/setups.js';
import { seriousViolations } from './axe.js';
import { browserSkipReason, launchBrowser, readmeShot, shot, type Browser } from './browser.js';
import { startServe, type ServeProcess } from './serve-process.js';

const skip = browserSkipReason();
if (skip) console.log(`test/ui: browser tests skipped: ${skip}`);

const VIEWPORTS = [
  { name: 'wide', width: 1440, height: 900 },
  { name: 'narrow', width: 390, height: 844 },
] as const;

const MANY = 10_000;
/** Document text is untrusted: this must show as text, never run or render as markup. */
const HOSTILE = 'Harbour notice <img src=x onerror="alert(1)"> and <b>bold</b> claims about the harbour pilot.';

/** A long document: "zebra" in two far-apart sentences, so the chunk filter finds exactly those. */
function longText(): string {
  const sentences: string[] = [];
  for (let index = 0; index < 900; index++) {
    sentences.push(index === 10 || index === 850 ? `Sentence ${index} mentions a zebra crossing.` : `Sentence ${index} is about harbours.`);
  }
  return sentences.join(' ');
}

describe.skipIf(skip !== null)("the operator's console screens in Chromium", () => {
  let model: OpenAIServer;
  let serve: ServeProcess;
  let browser: Browser;
  const temp = tempDir('ragdesk-ui-screens-');
  let bigId = '';
  let smallId = '';
  const timings: string[] = [];

  async function api<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${serve.origin}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${serve.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as T };
  }

  beforeAll(async () => {
    model = await startOpenAIServer({ reply: () => 'Tides follow the moon.' });
    serve = await startServe(['--data-dir', join(temp.dir, 'data'), '--owner', 'screens', '--rate-limit', '0', '--query-limit', '50/day'], {
      OPENAI_API_KEY: 'test-key',
      OPENAI_BASE_URL: model.baseURL,
    });
    browser = await launchBrowser();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: serve.origin });

    smallId = (await api<{ id: string }>('POST', '/datastores', { name: 'Harbour' })).body.id;
    const upserted = await api<{ ids: string[] }>('POST', `/datastores/upsert/${smallId}`, {
      documents: [
        { name: 'long.md', text: longText() },
        { name: 'notice.md', text: HOSTILE },
        { name: 'tides.md', text: 'Tides are caused by the gravitational pull of the moon and the sun.' },
      ],
    });
    expect(upserted.status).toBe(200);
    bigId = (await api<{ id: string }>('POST', '/datastores', { name: 'Archive' })).body.id;
    const documents = Array.from({ length: MANY }, (_, index) => ({
      name: `doc-${String(index + 1).padStart(5, '0')}.md`,
      text: `Archive record ${index + 1}.`,
    }));
    expect((await api('POST', `/datastores/upsert/${bigId}`, { documents })).status).toBe(200);
    const agent = await api<{ id: string }>('POST', '/agents', {
      name: 'Pilot',
      description: 'd',
      tools: [{ type: 'datastore', datastoreId: smallId }],
    });
    expect((await api('POST', `/agents/${agent.body.id}/query`, { query: 'What causes tides?' })).status).toBe(200);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    await model?.close();
    temp.remove();
    if (timings.length > 0) console.log(`\nconsole screens (Chromium headless, this machine; no timed assertion)\n${timings.join('\n')}\n`);
  });

  async function open(viewport: (typeof VIEWPORTS)[number], path: string) {
    const page = await browser.page({ width: viewport.width, height: viewport.height });
    await page.goto(`${serve.origin}/`);
    await page.evaluate(`sessionStorage.setItem('ragdesk.apiKey', ${JSON.stringify(serve.key)})`);
    await page.goto(`${serve.origin}${path}`);
    return page;
  }

  async function checkPage(page: Page & { dialogs: string[]; errors: string[] }, viewport: (typeof VIEWPORTS)[number], name: string) {
    expect(await seriousViolations(page), `${name} at ${viewport.width}px`).toEqual([]);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth'), `${name} fits ${viewport.width}px`).toBeLessThanOrEqual(
      viewport.width,
    );
    expect(page.dialogs).toEqual([]);
    expect(page.errors).toEqual([]);
    await shot(page, `screens-${name}-${viewport.name}`, { fullPage: true });
  }

  for (const viewport of VIEWPORTS) {
    describe(`at ${viewport.width}×${viewport.height}`, () => {
      it('API keys: creates a key shown once with a copy button, lists it by prefix, revokes it after confirming', async () => {
        const page = await open(viewport, '/keys');
        await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
        await page.locator('tr[data-key]').first().waitFor();
        await checkPage(page, viewport, 'keys');
        if (viewport.name === 'wide') await readmeShot(page, 'keys');

        const name = `reader ${viewport.name}`;
        await page.getByLabel('Name', { exact: true }).fill(name);
        await page.getByLabel('query: search and ask agents').uncheck();
        await page.getByLabel('Harbour').check();
        await page.getByRole('button', { name: 'Create key' }).click();
        const secretField = page.getByLabel('New API key');
        await secretField.waitFor();
        const secret = await secretField.inputValue();
        expect(secret).toMatch(/^rdk_/);
        await page.getByRole('button', { name: 'Copy', exact: true }).click();
        await page.getByText('Copied.').waitFor();
        expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);
        await checkPage(page, viewport, 'keys-created');

        // The new key works and holds what was asked: read on Harbour only.
        const asNew = (path: string) => fetch(`${serve.origin}/api${path}`, { headers: { authorization: `Bearer ${secret}` } });
        expect((await asNew(`/datastores/${smallId}`)).status).toBe(200);
        expect((await asNew(`/datastores/${bigId}`)).status).toBe(403);

        await page.getByRole('button', { name: 'Done' }).click();
        await expect.poll(async () => (await page.content()).includes(secret)).toBe(false);
        const row = page.locator('tr[data-key]', { hasText: name });
        expect(await row.locator('code').textContent()).toBe(`${secret.slice(0, 12)}…`);
        expect(await row.textContent()).toContain('Harbour');

        // Revoke: a confirmation first; cancelling keeps the key.
        await page.getByRole('button', { name: `Revoke ${name}` }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
        expect((await asNew(`/datastores/${smallId}`)).status).toBe(200);
        await page.getByRole('button', { name: `Revoke ${name}` }).click();
        await checkPage(page, viewport, 'keys-revoke-dialog');
        await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
        await row.locator('.badge', { hasText: 'revoked' }).waitFor();
        expect((await asNew(`/datastores/${smallId}`)).status).toBe(401);
        await page.close();
      });

      it('usage: a bar for each limit with what is used', async () => {
        const page = await open(viewport, '/usage');
        const queries = page.locator('li[data-usage^="Agent queries"]');
        await queries.waitFor();
        const meter = queries.getByRole('meter');
        expect(await meter.getAttribute('aria-valuemax')).toBe('50');
        const used = Number(await meter.getAttribute('aria-valuenow'));
        expect(used).toBeGreaterThanOrEqual(1);
        expect(await queries.locator('.usage-figure').textContent()).toBe(`${used} of 50`);
        const width = await meter.locator('span').evaluate((bar) => (bar as unknown as { style: { width: string } }).style.width);
        expect(parseFloat(width)).toBeCloseTo((used / 50) * 100, 1);
        const usage = (await api<{ storedTokens: { used: number }; datasources: { used: number } }>('GET', '/usage')).body;
        expect(await page.locator('li[data-usage="Stored tokens"] .usage-figure').textContent()).toBe(
          `${usage.storedTokens.used.toLocaleString('en-US')} (no limit)`,
        );
        expect(await page.locator('li[data-usage="Datasources"] .usage-figure').textContent()).toBe(
          `${usage.datasources.used.toLocaleString('en-US')} (no limit)`,
        );
        await checkPage(page, viewport, 'usage');
        if (viewport.name === 'wide') await readmeShot(page, 'usage');
        await page.close();
      });

      it(`datastore of ${MANY.toLocaleString('en-US')} datasources: totals, a page at a time, filtered by name`, async () => {
        const page = await browser.page({ width: viewport.width, height: viewport.height });
        await page.goto(`${serve.origin}/`);
        await page.evaluate(`sessionStorage.setItem('ragdesk.apiKey', ${JSON.stringify(serve.key)})`);
        const started = Date.now();
        await page.goto(`${serve.origin}/datastores/${bigId}`);
        await page.locator('tr[data-datasource="doc-00050.md"]').waitFor();
        timings.push(`  ${viewport.width}px: ${MANY} datasources, navigation -> first page of rows shown: ${Date.now() - started} ms`);
        expect(await page.locator('tr[data-datasource]').count()).toBe(50);
        await page.getByText(`Datasources 1–50 of ${MANY}`).waitFor();
        await page.locator('[data-total="Documents"] dd', { hasText: MANY.toLocaleString('en-US') }).waitFor();
        await checkPage(page, viewport, 'datastore-many');

        await page.getByRole('navigation', { name: 'Datasource pages' }).getByRole('button', { name: 'Next' }).click();
        await page.locator('tr[data-datasource="doc-00051.md"]').waitFor();
        expect(await page.locator('tr[data-datasource]').count()).toBe(50);
        await page.getByText('Page 2 of 200').waitFor();

        await page.getByLabel('Filter by name').fill('DOC-0999');
        await page.getByRole('button', { name: 'Filter', exact: true }).click();
        await page.getByText('Datasources 1–10 of 10').waitFor();
        const names = await page
          .locator('tr[data-datasource]')
          .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-datasource')));
        expect(names).toEqual(Array.from({ length: 10 }, (_, i) => `doc-0999${i}.md`));
        expect(await page.getByRole('navigation', { name: 'Datasource pages' }).count()).toBe(0);
        await page.close();
      });

      it('chunk viewer: opened from a datasource row, paged, with a text filter that marks the hits', async () => {
        const page = await open(viewport, `/datastores/${smallId}`);
        await page.getByRole('button', { name: 'Chunks of long.md' }).click();
        const viewer = page.locator('.chunk-viewer');
        await viewer.locator('li.chunk').first().waitFor();
        const first = await viewer.locator('li.chunk').first().getAttribute('data-chunk-position');
        expect(first).toBe('0');
        const total = Number(/of (\d+)/.exec((await viewer.locator('[aria-live]').textContent()) ?? '')?.[1]);
        expect(total).toBeGreaterThan(1);
        await checkPage(page, viewport, 'chunks');
        if (viewport.name === 'wide') await readmeShot(page, 'chunk-viewer', viewer.locator('li.chunk').first());
        if (total > 20) {
          await viewer.getByRole('button', { name: 'Next' }).click();
          await viewer.locator('li.chunk[data-chunk-position="20"]').waitFor();
        }
        await viewer.getByLabel('Find in chunks').fill('zebra');
        await viewer.getByRole('button', { name: 'Find' }).click();
        await viewer.getByText('Chunks 1–2 of 2 containing “zebra”').waitFor();
        expect(await viewer.locator('mark').allTextContents()).toEqual(['zebra', 'zebra']);
        // A snippet around the hit; "Show all" gives the whole chunk.
        const chunk = viewer.locator('li.chunk').first();
        const snippet = (await chunk.locator('.fragment-text').textContent()) ?? '';
        await chunk.getByRole('button', { name: /Show all/ }).click();
        const whole = (await chunk.locator('.fragment-text').textContent()) ?? '';
        expect(whole.length).toBeGreaterThan(snippet.length);
        expect(snippet).toContain('zebra');
        await checkPage(page, viewport, 'chunks-filtered');
        await page.close();
      });

      it('search: a mode to choose, the query words marked in a snippet, document markup shown as text', async () => {
        const page = await open(viewport, `/datastores/${smallId}`);
        await page.getByLabel('Query').fill('zebra crossing');
        await page.getByLabel('Mode').selectOption('lexical');
        const requests: unknown[] = [];
        page.on('request', (request) => {
          if (request.url().endsWith(`/api/datastores/${smallId}/query`)) requests.push(request.postDataJSON());
        });
        await page.getByRole('search', { name: 'Search' }).getByRole('button', { name: 'Search' }).click();
        const result = page.locator('.results .result').first();
        await result.waitFor();
        expect(requests).toEqual([expect.objectContaining({ query: 'zebra crossing', mode: 'lexical' })]);
        expect(await result.locator('mark').allTextContents()).toEqual(expect.arrayContaining(['zebra', 'crossing']));
        const snippet = (await result.locator('.fragment-text').textContent()) ?? '';
        expect(snippet).toContain('zebra');
        await result.getByRole('button', { name: /Show all/ }).click();
        expect(((await result.locator('.fragment-text').textContent()) ?? '').length).toBeGreaterThan(snippet.length);
        await checkPage(page, viewport, 'search');

        await page.getByLabel('Query').fill('harbour notice onerror');
        await page.getByLabel('Mode').selectOption('hybrid');
        await page.getByRole('search', { name: 'Search' }).getByRole('button', { name: 'Search' }).click();
        const notice = page.locator('.results .result', { hasText: 'notice.md' });
        await notice.waitFor();
        expect(await notice.locator('.fragment-text').textContent()).toBe(HOSTILE);
        expect(await page.locator('.results img, .results b').count()).toBe(0);
        expect(await notice.locator('mark').allTextContents()).toEqual(expect.arrayContaining(['Harbour', 'notice', 'onerror']));
        expect(page.dialogs).toEqual([]);
        await page.close();
      });
    });
  }
});
