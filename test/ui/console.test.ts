import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtures, PLANTED } from '../../fixtures/make-fixtures.js';
import { lastUserText, startOpenAIServer, type OpenAIServer } from '../../fixtures/openai-server.js';
import { tempDir } from '../helpers/setups.js';
import { ROOT, SHOTS, assetSizes, browserSkipReason, launchBrowser, markTime, shot, type Browser } from './browser.js';
import { startServe, type ServeProcess } from './serve-process.js';

const skip = browserSkipReason();
if (skip) console.log(`test/ui: browser tests skipped: ${skip}`);

/** The answer the local model server gives: Markdown, so the page's rendering shows. */
const ANSWER = `The sample PDF plants **${PLANTED.pdfPages[1]}** on its second page, and the Word file says \`${PLANTED.docx}\`.`;

describe.skipIf(skip !== null)('web console in Chromium against ragdesk serve', () => {
  let model: OpenAIServer;
  let serve: ServeProcess;
  let browser: Browser;
  const temp = tempDir('ragdesk-ui-');
  const figures: Record<string, string> = {};

  beforeAll(async () => {
    model = await startOpenAIServer({ reply: () => ANSWER, interTokenDelayMs: 15 });
    serve = await startServe(['--data-dir', join(temp.dir, 'data'), '--owner', 'ui-test'], {
      OPENAI_API_KEY: 'test-key',
      OPENAI_BASE_URL: model.baseURL,
    });
    browser = await launchBrowser();
    const files = buildFixtures();
    for (const name of ['sample.pdf', 'sample.docx', 'junk.bin']) writeFileSync(join(temp.dir, name), files[name] as Uint8Array);
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    await model?.close();
    temp.remove();
    const sizes = assetSizes();
    figures['assets (gzipped, all files)'] = `${(sizes.gzippedBytes / 1024).toFixed(1)} KB in ${sizes.files} files`;
    console.log(
      `\nweb console benchmark (Chromium headless, this machine; no timed assertion)\n${Object.entries(figures)
        .map(([name, value]) => `  ${name.padEnd(44)} ${value}`)
        .join('\n')}\n`,
    );
  });

  it('ragdesk serve prints the console URL first, then the admin key', () => {
    expect(serve.output().split('\n')[0]).toBe(`Open the console: ${serve.origin}/`);
    expect(serve.key).toMatch(/^rdk_/);
  });

  it('signs in, uploads a PDF and a DOCX, watches them sync, searches, makes a public agent and chats with it', async () => {
    const page = await browser.page();
    const apiCalls: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.origin === serve.origin && url.pathname.startsWith('/api/')) apiCalls.push(`${request.method()} ${url.pathname}`);
    });

    // Sign-in: a wrong key is refused plainly; the right one is kept in sessionStorage, never in the URL.
    await page.goto(serve.consoleUrl);
    await shot(page, '01-sign-in');
    await page.getByLabel('API key').fill('rdk_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('refused');
    await page.getByLabel('API key').fill(serve.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Datastores' }).waitFor();
    expect(page.url()).not.toContain(serve.key);
    expect(await page.evaluate("sessionStorage.getItem('ragdesk.apiKey')")).toBe(serve.key);

    // Navigation to an interactive console (the datastore list loaded), key already in the tab.
    await page.goto(`${serve.origin}/datastores`);
    await page.getByText('No datastore yet').waitFor();
    figures['navigation -> interactive console'] = `${(await markTime(page, 'ragdesk:interactive'))?.toFixed(0)} ms`;

    // Create, rename, open a datastore.
    await page.getByLabel('Name', { exact: true }).fill('Handbok');
    await page.getByRole('button', { name: 'Create datastore' }).click();
    await page.getByRole('button', { name: 'Rename Handbok' }).click();
    await page.getByLabel('New name').fill('Handbook');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('link', { name: 'Handbook' }).click();
    await page.getByRole('heading', { name: 'Handbook' }).waitFor();

    // The PDF through the file picker, the DOCX dropped on the drop zone, and a file the loaders refuse.
    await page.setInputFiles('#file-picker', [join(temp.dir, 'sample.pdf'), join(temp.dir, 'junk.bin')]);
    const docx = files(temp.dir, 'sample.docx');
    const transfer = await page.evaluateHandle(`(() => {
      const data = new DataTransfer();
      const bytes = Uint8Array.from(atob(${JSON.stringify(docx.base64)}), (char) => char.charCodeAt(0));
      data.items.add(new File([bytes], ${JSON.stringify(docx.name)}, { type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' }));
      return data;
    })()`);
    await page.dispatchEvent('.dropzone', 'drop', { dataTransfer: transfer });
    await expect.poll(() => page.locator('.upload-refused').textContent()).toContain('junk.bin');
    expect(await page.locator('.upload-refused').textContent()).toMatch(/refused: .+/);

    // Live status: the rows change without a reload until both are synched.
    const seen = new Set<string>();
    await expect
      .poll(
        async () => {
          const statuses = await page
            .locator('tr[data-datasource] [data-status]')
            .evaluateAll((badges) => badges.map((badge) => badge.getAttribute('data-status')));
          for (const status of statuses) seen.add(status ?? '');
          return statuses.length === 2 && statuses.every((status) => status === 'synched');
        },
        { timeout: 60_000, interval: 100 },
      )
      .toBe(true);
    figures['statuses seen while syncing'] = [...seen].join(' -> ');
    expect(await page.locator('tr[data-datasource="sample.pdf"] td.num').first().textContent()).not.toBe('0');
    await shot(page, '02-datastore-synched');
    // Re-sync goes back through the queue and ends synched again.
    const lastSync = await page.locator('tr[data-datasource="sample.docx"] td[data-label="Last sync"]').textContent();
    await page.getByRole('button', { name: 'Re-sync sample.docx' }).click();
    await expect
      .poll(
        async () => {
          const row = page.locator('tr[data-datasource="sample.docx"]');
          return (
            (await row.locator('[data-status]').getAttribute('data-status')) === 'synched' &&
            (await row.locator('td[data-label="Last sync"]').textContent()) !== null
          );
        },
        { timeout: 30_000 },
      )
      .toBe(true);
    expect(lastSync).toBeTruthy();

    // Search: the planted string of page two comes first, with its page number.
    await page.getByLabel('Query').fill(PLANTED.pdfPages[1]);
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    const first = page.locator('.results .result').first();
    await first.waitFor();
    expect(await first.textContent()).toContain(PLANTED.pdfPages[1]);
    expect(await first.textContent()).toContain('page 2');
    // Filtered to the DOCX, the PDF's fragment is gone.
    await page.getByLabel('Datasource', { exact: true }).selectOption({ label: 'sample.docx' });
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await expect
      .poll(async () => (await page.locator('.results .result').allTextContents()).every((text) => text.includes('sample.docx')))
      .toBe(true);
    await page.getByLabel('Datasource', { exact: true }).selectOption({ label: 'All' });
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await page.locator('.results .result').first().waitFor();
    await shot(page, '03-console', { fullPage: true });

    // A public agent reading the datastore.
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('button', { name: 'New agent' }).click();
    await page.getByLabel('Name').fill('Handbook helper');
    await page.getByLabel('Description').fill('Answers from the handbook');
    await page.getByLabel('Handbook').check();
    await page.getByLabel('Visibility').selectOption('public');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByText('Embed on a website').click();
    const snippet = await page.locator('.snippet pre').textContent();
    expect(snippet).toMatch(new RegExp(`<script src="${serve.origin}/widget.js" data-agent-id="[0-9a-f-]{36}" defer></script>`));
    const agentId = /data-agent-id="([^"]+)"/.exec(snippet ?? '')?.[1] as string;
    await page.getByRole('button', { name: 'Edit Handbook helper' }).click();
    await page.getByLabel('Description').fill('Answers from the handbook, with sources');
    await page.getByLabel('Temperature').fill('0.3');
    await page.getByRole('button', { name: 'Save agent' }).click();
    await page.getByText('Answers from the handbook, with sources').waitFor();
    const saved = (await (
      await fetch(`${serve.origin}/api/agents/${agentId}`, { headers: { authorization: `Bearer ${serve.key}` } })
    ).json()) as { temperature: number; visibility: string };
    expect(saved).toMatchObject({ temperature: 0.3, visibility: 'public' });
    await shot(page, '04-agents');

    // Chat: streamed Markdown answer with sources; the conversation continues.
    await page.getByRole('link', { name: 'Chat' }).click();
    await page.waitForURL(`${serve.origin}/chat/${agentId}`);
    await page.getByLabel('Your question').fill('What does the second page of the PDF say?');
    await page.keyboard.press('Enter');
    const answer = page.locator('.turn-assistant').last();
    await answer.locator('.sources li').first().waitFor();
    expect(await answer.locator('strong').textContent()).toBe(PLANTED.pdfPages[1]);
    expect(await answer.locator('.md code').textContent()).toBe(PLANTED.docx);
    await answer.locator('.sources summary').first().click();
    expect(await answer.locator('.fragment').first().textContent()).toMatch(/PDFPAGE|DOCXBODY/);
    await page.getByLabel('Your question').fill('And the Word file?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.turn-assistant').nth(1).locator('.sources li').first().waitFor();
    const followUp = model.chatRequests().at(-1);
    expect(followUp?.messages.map((message) => message.content ?? '').join('\n')).toContain('What does the second page of the PDF say?');
    expect(lastUserText(followUp!)).toContain('And the Word file?');
    await shot(page, '05-chat');

    // Every call the console made is a route of the public API (its OpenAPI document).
    const openapi = (await (await fetch(`${serve.origin}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(openapi.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => ({
        method: method.toUpperCase(),
        pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      })),
    );
    const unknown = [...new Set(apiCalls)].filter((call) => {
      const [method, path] = call.split(' ') as [string, string];
      return !routes.some((route) => route.method === method && route.pattern.test(path));
    });
    expect(apiCalls.length).toBeGreaterThan(10);
    expect(unknown).toEqual([]);
    expect(page.dialogs).toEqual([]);
    expect(page.errors).toEqual([]);
    await page.close();

    // The README's images come from these screenshots.
    mkdirSync(join(ROOT, 'docs/images'), { recursive: true });
    copyFileSync(join(SHOTS, '03-console.png'), join(ROOT, 'docs/images/console.png'));
    copyFileSync(join(SHOTS, '05-chat.png'), join(ROOT, 'docs/images/chat.png'));

    await chatWithoutKey(agentId);
  });

  /** A public agent's chat page needs no key; first streamed token timed; a stream stopped midway. */
  async function chatWithoutKey(agentId: string) {
    const page = await browser.page();
    await page.goto(`${serve.origin}/chat/${agentId}`);
    // A visitor new to this agent: the keyed chat above left its conversation in this profile's storage.
    await page.evaluate('localStorage.clear()');
    await page.reload();
    await page.getByLabel('Your question').fill('Which page plants the string?');
    await page.keyboard.press('Enter');
    await page.locator('.turn-assistant .sources li').first().waitFor();
    figures['navigation -> first streamed token (chat page)'] = `${(await markTime(page, 'ragdesk:first-token'))?.toFixed(0)} ms`;

    model.enqueue({ kind: 'reply', endpoint: 'chat', text: `${'word '.repeat(200)}end`, interTokenDelayMs: 100 });
    await page.getByLabel('Your question').fill('Tell me everything, slowly.');
    await page.keyboard.press('Enter');
    const streaming = page.locator('.turn-assistant').last();
    await expect.poll(async () => (await streaming.locator('.md').textContent())?.length ?? 0).toBeGreaterThan(10);
    await page.getByRole('button', { name: 'Stop' }).click();
    await streaming.getByText('Stopped.').waitFor();
    const disconnect = await model.nextDisconnect(10_000);
    expect(disconnect.piecesSent).toBeLessThan(200);
    expect(await streaming.locator('.md').textContent()).not.toContain('end');
    await page.getByRole('button', { name: 'Send' }).waitFor();
    await shot(page, '06-stopped');

    // Narrow screen and dark mode.
    await page.setViewportSize({ width: 360, height: 640 });
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    const background = await page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    expect(background).toBe('rgb(21, 23, 26)');
    await shot(page, '07-chat-360px-dark');
    expect(page.dialogs).toEqual([]);
    await page.close();
  }

  it('is usable with the keyboard and at 360 px wide', async () => {
    // Its own datastore with one file, made over the API, so this test stands alone.
    const auth = { authorization: `Bearer ${serve.key}` };
    const created = await fetch(`${serve.origin}/api/datastores`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Keyboard' }),
    });
    const datastoreId = ((await created.json()) as { id: string }).id;
    const form = new FormData();
    form.set('type', 'file');
    form.set('datastoreId', datastoreId);
    form.set('file', new Blob([buildFixtures()['sample.docx'] as Uint8Array]), 'a-rather-long-file-name-for-a-narrow-screen.docx');
    expect((await fetch(`${serve.origin}/api/datasources`, { method: 'POST', headers: auth, body: form })).status).toBe(200);

    const page = await browser.page({ width: 360 });
    await page.goto(serve.consoleUrl);
    await page.evaluate(`sessionStorage.setItem('ragdesk.apiKey', ${JSON.stringify(serve.key)})`);
    await page.goto(`${serve.origin}/datastores`);
    await page.getByRole('link', { name: 'Keyboard' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string | null | undefined>('document.activeElement?.textContent')).toBe('Skip to content');
    // Every form control has a label.
    const unlabelled = await page
      .locator('input:not([type=hidden]), select, textarea')
      .evaluateAll((controls) =>
        controls
          .filter(
            (control) => (control as unknown as { labels: unknown[] | null }).labels?.length === 0 && !control.getAttribute('aria-label'),
          )
          .map((control) => control.outerHTML),
      );
    expect(unlabelled).toEqual([]);
    // Keyboard only: tab to the datastore link and open it with Enter.
    for (let step = 0; step < 12; step++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate<string | null | undefined>('document.activeElement?.textContent')) === 'Keyboard') break;
    }
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Keyboard' }).waitFor();
    await page.locator('tr[data-datasource]').first().waitFor();
    await shot(page, '08-datastore-360px');
    // Deleting asks first; Cancel keeps it, confirming removes it.
    await page.getByRole('button', { name: 'Delete a-rather-long-file-name-for-a-narrow-screen.docx' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    expect(await page.locator('tr[data-datasource]').count()).toBe(1);
    await page.getByRole('button', { name: 'Delete a-rather-long-file-name-for-a-narrow-screen.docx' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete datasource' }).click();
    await page.getByText('Nothing here yet').waitFor();
    await page.getByRole('link', { name: 'Datastores' }).first().click();
    await page.getByRole('button', { name: 'Delete Keyboard' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete datastore' }).click();
    await expect.poll(() => page.getByRole('link', { name: 'Keyboard' }).count()).toBe(0);
    const listed = (await (await fetch(`${serve.origin}/api/datastores`, { headers: auth })).json()) as { name: string }[];
    expect(listed.map((datastore) => datastore.name)).not.toContain('Keyboard');
    // Nothing visible sticks out of a 360 px screen (clipped, screen-reader-only text aside).
    const wide = await page.evaluate<string[]>(
      `[...document.querySelectorAll('body *')].filter((e) => !e.closest('thead, .sr-only') && e.getBoundingClientRect().right > 361).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))`,
    );
    expect(wide).toEqual([]);
    await page.close();
  });
});

function files(dir: string, name: string): { name: string; base64: string } {
  return { name, base64: Buffer.from(buildFixtures()[name] as Uint8Array).toString('base64') };
}
