import type { RequestListener } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../adapters/http/index.js';
import type { OpenedRagdesk } from '../../adapters/node.js';
import type { OpenAIServer } from '../../fixtures/openai-server.js';
import { browserSkipReason, shot, type Browser } from './browser.js';
import { openModelSite, type ModelSite } from './model-site.js';
import { expectWidgetRefused } from './widget-refusal.js';
const skip = browserSkipReason();

const PLANTED = 'INJECTDOC-5e1a';
/** Document text that would run script if it were ever parsed as HTML. */
const HOSTILE_DOCUMENT = `Refund policy ${PLANTED}. <img src=x onerror="window.__pwned='document';alert('document')"> <script>window.__pwned='document script';alert('document script')</script>`;
/** A model answer that tries the same, plus a javascript: link. */
const HOSTILE_ANSWER =
  `Here is the policy **${PLANTED}**. <script>window.__pwned='answer';alert('answer')</script> ` +
  `<img src=x onerror="window.__pwned='answer img';alert('answer img')"> [click me](javascript:alert('link'))`;

/** A page on another origin that embeds the widget, with CSS that would leak into a plain-DOM widget. */
function hostPage(widgetSrc: string, agentId: string): string {
  return `<!doctype html><html><head><title>Someone's site</title>
<style>button { background: rgb(255, 0, 0) !important; } .turn { background: rgb(0, 255, 0); } body { font-family: serif; }</style>
</head><body><h1>A site with a chat bubble</h1><p class="turn" id="host-turn">The host's own element.</p>
<script src="${widgetSrc}" data-agent-id="${agentId}" data-title="Ask the handbook" defer></script></body></html>`;
}

describe.skipIf(skip !== null)('chat widget on another origin, and hostile text in the browser', () => {
  let site: ModelSite;
  let model: OpenAIServer;
  let ragdesk: OpenedRagdesk;
  let key: string;
  let agentId: string;
  let apiOrigin: string;
  let hostOrigin: string;
  let strangerOrigin: string;
  /** Error codes the handler logged (the scripted upstream failure), instead of stderr. */
  const logged: string[] = [];
  let browser: Browser;

  beforeAll(async () => {
    site = await openModelSite('ragdesk-widget-', { reply: () => HOSTILE_ANSWER });
    ragdesk = site.ragdesk;
    model = site.model;
    key = (await ragdesk.keys.create({ ownerId: 'site', name: 'widget test', scopes: ['admin'] })).key;
    const datastore = await ragdesk.datastores.create({ name: 'Policies' }, { ownerId: 'site' });
    await datastore.upsert([{ text: HOSTILE_DOCUMENT, name: '<b>policy</b>.txt' }]);
    agentId = (
      await ragdesk.agents.create(
        { name: 'Policy helper', description: 'Answers from the policies', visibility: 'public', datastoreIds: [datastore.id] },
        { ownerId: 'site' },
      )
    ).id;

    // Two other origins (other ports): one the API allows, one it does not.
    const page: RequestListener = (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html' }).end(hostPage(`${apiOrigin}/widget.js`, agentId));
    hostOrigin = await site.serve(page);
    strangerOrigin = await site.serve(page);
    apiOrigin = await site.serve(
      createHttpHandler(ragdesk, {
        ui: true,
        cors: { origins: [hostOrigin] },
        logger: { error: (message, fields) => logged.push(String(fields.code)) },
      }),
    );
    browser = await site.browser();
  });

  afterAll(() => site?.close());

  it('the widget on another origin opens in a shadow root, answers with sources, and neither side restyles the other', async () => {
    const page = await browser.page();
    await page.goto(hostOrigin);
    const bubble = page.locator('.bubble');
    await bubble.waitFor();
    expect(await page.evaluate<boolean>(`document.querySelector('[data-ragdesk-widget]').shadowRoot !== null`)).toBe(true);
    // The host's `button { background: red !important }` does not reach into the shadow root...
    expect(
      await page.evaluate<string>(
        `getComputedStyle(document.querySelector('[data-ragdesk-widget]').shadowRoot.querySelector('.bubble')).backgroundColor`,
      ),
    ).toBe('rgb(36, 86, 211)');
    await bubble.click();
    await page.getByLabel('Your question').fill('What is the refund policy?');
    await page.keyboard.press('Enter');
    const answer = page.locator('.turn-assistant').last();
    await answer.locator('.sources li').first().waitFor();
    expect(await answer.locator('strong').textContent()).toBe(PLANTED);
    // ...and the widget's `.turn` style does not reach the host's element.
    expect(await page.evaluate<string>(`getComputedStyle(document.getElementById('host-turn')).backgroundColor`)).toBe('rgb(0, 255, 0)');
    expect(await page.evaluate<string>(`getComputedStyle(document.getElementById('host-turn')).fontFamily`)).toBe('serif');
    await expectInert(page, answer);
    await shot(page, '10-widget');
    await page.close();
  });

  it('a site neither the server nor the agent allows is told so, and cannot ask', async () => {
    const page = await browser.page();
    await page.goto(strangerOrigin);
    await expectWidgetRefused(page);
    await page.close();
  });

  it('document text and model output with HTML render as text in the console (search and chat)', async () => {
    const page = await browser.page();
    await page.goto(apiOrigin);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Policies' }).click();
    await page.getByLabel('Query').fill(PLANTED);
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    const result = page.locator('.results .result').first();
    await result.waitFor();
    expect(await result.locator('.fragment-text').textContent()).toContain(`<img src=x onerror="window.__pwned='document'`);
    expect(await result.textContent()).toContain('<b>policy</b>.txt');
    expect(await page.locator('.results img, .results script, .results b').count()).toBe(0);

    await page.goto(`${apiOrigin}/chat/${agentId}`);
    await page.getByLabel('Your question').fill('What is the refund policy?');
    await page.keyboard.press('Enter');
    const answer = page.locator('.turn-assistant').last();
    await answer.locator('.sources li').first().waitFor();
    await answer.locator('.sources summary').first().click();
    expect(await answer.locator('.fragment').first().textContent()).toContain('<script>');
    await expectInert(page, answer);
    await shot(page, '11-injection-as-text');
    expect(page.dialogs).toEqual([]);
    await page.close();
  });

  it('explains a key without the needed scope, and a stream that fails after it opened', async () => {
    const reader = (await ragdesk.keys.create({ ownerId: 'site', name: 'reader', scopes: ['read'] })).key;
    const page = await browser.page();
    await page.goto(apiOrigin);
    await page.getByLabel('API key').fill(reader);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Not allowed');
    await page.getByRole('button', { name: 'Create datastore' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('This API key lacks the "write" scope needed here.');

    // The chat page sends the signed-in key: this one may not query, and says so.
    await page.goto(`${apiOrigin}/chat/${agentId}`);
    await page.getByLabel('Your question').fill('What is the refund policy?');
    await page.keyboard.press('Enter');
    await expect
      .poll(() =>
        page
          .locator('.turn-error')
          .textContent()
          .catch(() => ''),
      )
      .toBe('This API key lacks the "query" scope needed here.');

    // Signed out, the public agent answers; a failure after the stream opened is shown plainly.
    await page.getByRole('link', { name: 'ragdesk' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    model.enqueue({ kind: 'stream_error', endpoint: 'chat', pieces: 2 });
    await page.goto(`${apiOrigin}/chat/${agentId}`);
    await page.getByLabel('Your question').fill('What is the refund policy?');
    await page.keyboard.press('Enter');
    await expect
      .poll(() =>
        page
          .locator('.turn-error')
          .textContent()
          .catch(() => ''),
      )
      .toMatch(/^The answer stopped with an error \(\w+\)$/);
    expect(logged).toEqual(['upstream_failed']);
    expect(page.dialogs).toEqual([]);
    await page.close();
  });

  async function expectInert(
    page: Awaited<ReturnType<Browser['page']>>,
    answer: ReturnType<Awaited<ReturnType<Browser['page']>>['locator']>,
  ) {
    const text = (await answer.locator('.md').textContent()) ?? '';
    expect(text).toContain(`<script>window.__pwned='answer'`);
    expect(text).toContain('<img src=x onerror=');
    expect(await answer.locator('script, img, iframe, a[href^="javascript:"]').count()).toBe(0);
    expect(await page.evaluate<unknown>('window.__pwned')).toBeUndefined();
    expect(page.dialogs).toEqual([]);
    expect(page.errors).toEqual([]);
  }
});
