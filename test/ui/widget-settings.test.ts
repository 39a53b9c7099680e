/**
 * The widget as a product, in Chromium against `ragdesk serve` (no --cors): the console's widget
 * settings with a live preview of unsaved values, saving, the embed code's copy button; then the
 * widget on a second local origin the agent allows (its colour, name and suggested questions, an
 * answer) and on one it does not (the not-allowed message). At 1440×900 and 390×844, with axe on
 * the settings page, the chat page and the widget.
 */
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../../fixtures/openai-server.js';
import { tempDir } from '../helpers/setups.js';
import { seriousViolations } from './axe.js';
import { browserSkipReason, launchBrowser, readmeShot, shot, type Browser } from './browser.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { listenLocal } from '../helpers/http-server.js';
import { expectWidgetRefused } from './widget-refusal.js';

const skip = browserSkipReason();

const VIEWPORTS = [
  { name: 'wide', width: 1440, height: 900 },
  { name: 'narrow', width: 390, height: 844 },
] as const;

const REPLY = 'High tide is at noon.';
const TEAL = { css: '#0b7285', rgb: 'rgb(11, 114, 133)' };
/** An anchor on a white disc, as an inline image: the widget draws it with <img>. */
const ICON = `data:image/svg+xml;base64,${Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><circle cx="12" cy="12" r="12" fill="#fff"/>' +
    '<path d="M12 4v14M8 8h8M6 14a6 6 0 0 0 12 0" stroke="#0b7285" stroke-width="2" fill="none"/></svg>',
).toString('base64')}`;

function sitePage(api: string, agentId: string, attributes = ''): string {
  return `<!doctype html><html lang="en"><head><title>A harbour site</title><meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>The harbour</h1><p>Ask the desk in the corner.</p></main>
<script src="${api}/widget.js" data-agent-id="${agentId}" ${attributes} defer></script></body></html>`;
}

/** The site's own choices on the script tag, which win over the agent's settings. */
const OVERRIDES = 'data-title="Ask the harbour" data-primary-color="#7a1f5c" data-position="right"';

describe.skipIf(skip !== null)('widget settings, preview, embed code, and the widget on allowed and refused sites', () => {
  const temp = tempDir('ragdesk-widget-settings-');
  let model: OpenAIServer;
  let serve: ServeProcess;
  let browser: Browser;
  let agentId = '';
  let privateId = '';
  let allowedSite = '';
  let refusedSite = '';
  const sites: Server[] = [];

  async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${serve.origin}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${serve.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(response.status, `${method} ${path}`).toBe(200);
    return (await response.json()) as T;
  }

  beforeAll(async () => {
    model = await startOpenAIServer({ reply: () => REPLY });
    serve = await startServe(['--data-dir', join(temp.dir, 'data'), '--owner', 'harbour', '--rate-limit', '0', '--no-preload'], {
      OPENAI_API_KEY: 'test-key',
      OPENAI_BASE_URL: model.baseURL,
    });
    const datastore = await api<{ id: string }>('POST', '/datastores', { name: 'Tides' });
    await api('POST', `/datastores/upsert/${datastore.id}`, {
      documents: [{ name: 'tides.md', text: 'High tide in the harbour is at noon.' }],
    });
    const tools = [{ type: 'datastore', datastoreId: datastore.id }];
    agentId = (
      await api<{ id: string }>('POST', '/agents', { name: 'Pilot', description: 'Harbour questions', visibility: 'public', tools })
    ).id;
    privateId = (await api<{ id: string }>('POST', '/agents', { name: 'Back office', description: 'Staff only', tools })).id;
    for (const _ of [0, 1]) {
      const site = createServer((request, response) =>
        response
          .writeHead(200, { 'content-type': 'text/html' })
          .end(sitePage(serve.origin, agentId, request.url === '/overrides' ? OVERRIDES : '')),
      );
      sites.push(site);
    }
    allowedSite = await listenLocal(sites[0]!);
    refusedSite = await listenLocal(sites[1]!);
    browser = await launchBrowser();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: serve.origin });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    for (const site of sites) {
      site.closeAllConnections();
      await new Promise((resolve) => site.close(resolve));
    }
    await serve?.stop();
    await model?.close();
    temp.remove();
  });

  async function open(viewport: (typeof VIEWPORTS)[number], path: string) {
    const page = await browser.page({ width: viewport.width, height: viewport.height });
    await page.goto(`${serve.origin}/`);
    await page.evaluate(`sessionStorage.setItem('ragdesk.apiKey', ${JSON.stringify(serve.key)})`);
    await page.goto(`${serve.origin}${path}`);
    return page;
  }

  const inPreview = (page: Page, selector: string) => page.locator(`.widget-preview ${selector}`);
  /** Runs in the page; this file is compiled without the DOM's types, hence the window's shape spelled out. */
  type StyleWindow = { getComputedStyle(element: unknown): { backgroundColor: string } };
  const background = (page: Page, selector: string) =>
    page.locator(selector).evaluate((element) => (globalThis as unknown as StyleWindow).getComputedStyle(element).backgroundColor);

  for (const viewport of VIEWPORTS) {
    describe(`at ${viewport.width}×${viewport.height}`, () => {
      it('the settings form redraws the preview as you type, saves, and copies the embed code', async () => {
        const page = await open(viewport, `/agents/${agentId}/widget`);
        await page.getByRole('heading', { name: 'Widget of Pilot', level: 1 }).waitFor();
        await inPreview(page, '.panel').waitFor();
        // Drawn inside its box on the page, launcher and open panel, not fixed to the window.
        const frame = (await page.locator('.widget-preview').boundingBox())!;
        for (const part of ['.panel', '.bubble']) {
          const box = (await inPreview(page, part).boundingBox())!;
          expect(box.y, part).toBeGreaterThanOrEqual(frame.y);
          expect(box.y + box.height, part).toBeLessThanOrEqual(frame.y + frame.height);
          expect(box.x + box.width, part).toBeLessThanOrEqual(frame.x + frame.width);
        }
        expect(await inPreview(page, '.panel-title').textContent()).toBe(viewport.name === 'wide' ? 'Ask us' : 'Harbour desk');

        await page.getByLabel('Display name').fill('Harbour desk');
        await expect.poll(() => inPreview(page, '.panel-title').textContent()).toBe('Harbour desk');
        await page.getByLabel('Primary colour', { exact: true }).fill(TEAL.css);
        await expect.poll(() => background(page, '.widget-preview .bubble')).toBe(TEAL.rgb);
        // An icon is drawn only from an http(s) or data:image address, and only as an image.
        await page.getByLabel('Icon URL (optional)').fill('javascript:alert(1)');
        await expect.poll(() => inPreview(page, 'img').count()).toBe(0);
        await page.getByLabel('Icon URL (optional)').fill(ICON);
        await expect.poll(() => inPreview(page, '.panel-title img.icon').getAttribute('src')).toBe(ICON);
        await page.getByLabel('First messages (one per line)').fill('Ahoy! Ask about the tides.');
        await page.getByLabel('Suggested questions (one per line)').fill('When is high tide?\nWhere is the pilot boat?');
        await expect
          .poll(() => inPreview(page, '.suggestion').allTextContents())
          .toEqual(['When is high tide?', 'Where is the pilot boat?']);
        expect(await inPreview(page, '.initial-message').allTextContents()).toEqual(['Ahoy! Ask about the tides.']);
        await page.getByLabel('Position').selectOption('left');
        await expect.poll(() => page.locator('.widget-preview .widget-frame').getAttribute('class')).toContain('left');
        await page.getByLabel('Allowed origins (one per line)').fill(`${allowedSite}\nhttps://shop.example/path`);

        // The server checks what the form sends, and says which line is wrong.
        await page.getByRole('button', { name: 'Save widget' }).click();
        await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('interfaceConfig.authorizedDomains.1');
        await page.getByLabel('Allowed origins (one per line)').fill(allowedSite);
        await page.getByRole('button', { name: 'Save widget' }).click();
        await page.getByText('Widget settings saved.').waitFor();
        const saved = await api<{ interfaceConfig: Record<string, unknown> }>('GET', `/agents/${agentId}`);
        expect(saved.interfaceConfig).toMatchObject({
          displayName: 'Harbour desk',
          primaryColor: TEAL.css,
          iconUrl: ICON,
          position: 'left',
          initialMessages: ['Ahoy! Ask about the tides.'],
          messageTemplates: ['When is high tide?', 'Where is the pilot boat?'],
          authorizedDomains: [allowedSite],
        });

        expect(await seriousViolations(page), `widget settings at ${viewport.width}px`).toEqual([]);
        expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width);
        await shot(page, `widget-settings-${viewport.name}`);
        if (viewport.name === 'wide') await readmeShot(page, 'widget-settings');

        const copy = page.getByRole('button', { name: 'Copy the embed code of Pilot' });
        await copy.scrollIntoViewIfNeeded();
        await copy.click();
        await page.locator('.copy-status[aria-live="polite"]', { hasText: 'Copied.' }).waitFor();
        expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(
          `<script src="${serve.origin}/widget.js" data-agent-id="${agentId}" defer></script>`,
        );
        expect(page.dialogs).toEqual([]);
        expect(page.errors).toEqual([]);
        await page.close();
      });

      it('a private agent gets the embed code with a note that other sites cannot use it yet', async () => {
        const page = await open(viewport, `/agents/${privateId}/widget`);
        await page.getByText('This agent is private: visitors of other sites cannot use it until it is made public.').waitFor();
        expect(await page.locator('.snippet-body pre').textContent()).toContain(`data-agent-id="${privateId}"`);
        await page.close();
      });

      it("the widget on an allowed site wears the agent's settings and answers a suggested question", async () => {
        const page = await browser.page({ width: viewport.width, height: viewport.height });
        await page.goto(allowedSite);
        // A visitor new to the agent: the run at the other size left its conversation in this site's storage.
        await page.evaluate('localStorage.clear()');
        await page.reload();
        const bubble = page.locator('.bubble');
        await expect.poll(() => bubble.getAttribute('aria-label')).toBe('Harbour desk');
        expect(await background(page, '.bubble')).toBe(TEAL.rgb);
        expect(await page.locator('.bubble img.icon').getAttribute('src')).toBe(ICON);
        // Bottom left, as set.
        expect((await bubble.boundingBox())!.x).toBeLessThan(viewport.width / 2);
        await bubble.click();
        expect(await page.locator('.panel-title').textContent()).toBe('Harbour desk');
        expect(await page.locator('.initial-message').allTextContents()).toEqual(['Ahoy! Ask about the tides.']);
        expect(await seriousViolations(page), `widget at ${viewport.width}px`).toEqual([]);
        await page.getByRole('button', { name: 'When is high tide?' }).click();
        const answer = page.locator('.turn-assistant:not(.initial-message)').last();
        await answer.locator('.sources li').first().waitFor();
        expect(await answer.locator('.md').textContent()).toContain(REPLY);
        expect(await page.locator('.turn-user .turn-text').textContent()).toBe('When is high tide?');
        // The chips go once the conversation has started.
        expect(await page.locator('.suggestion').count()).toBe(0);
        expect(await seriousViolations(page), `widget with an answer at ${viewport.width}px`).toEqual([]);
        await shot(page, `widget-allowed-${viewport.name}`);
        if (viewport.name === 'wide') await readmeShot(page, 'widget-on-a-site');
        expect(page.errors).toEqual([]);
        await page.close();
      });

      it("the script tag's data-title, data-primary-color and data-position win over the agent's settings", async () => {
        const page = await browser.page({ width: viewport.width, height: viewport.height });
        await page.goto(`${allowedSite}/overrides`);
        const bubble = page.locator('.bubble');
        await expect.poll(() => background(page, '.bubble')).toBe('rgb(122, 31, 92)');
        expect(await bubble.getAttribute('aria-label')).toBe('Ask the harbour');
        expect((await bubble.boundingBox())!.x).toBeGreaterThan(viewport.width / 2);
        await page.close();
      });

      it('the widget on a site the agent does not list says so', async () => {
        const page = await browser.page({ width: viewport.width, height: viewport.height });
        await page.goto(refusedSite);
        await expectWidgetRefused(page);
        expect(await seriousViolations(page), `refused widget at ${viewport.width}px`).toEqual([]);
        await shot(page, `widget-refused-${viewport.name}`);
        await page.close();
      });

      it('the chat page of the agent has no serious accessibility violation', async () => {
        const page = await browser.page({ width: viewport.width, height: viewport.height });
        await page.goto(`${serve.origin}/chat/${agentId}`);
        await page.locator('.suggestion').first().waitFor();
        expect(await seriousViolations(page), `chat page at ${viewport.width}px`).toEqual([]);
        await page.close();
      });
    });
  }
});
