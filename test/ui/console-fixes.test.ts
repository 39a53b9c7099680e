import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../adapters/http/index.js';
import type { OpenedRagdesk } from '../../adapters/node.js';
import { buildFixtures } from '../../fixtures/make-fixtures.js';
import { axeViolations } from './axe.js';
import { browserSkipReason, type Browser } from './browser.js';
import { openModelSite, type ModelSite } from './model-site.js';
const skip = browserSkipReason();

/** A model answer with a GFM table whose cells try HTML: it must become a table of text. */
const TABLE_ANSWER =
  'Plans:\n\n| Plan | Price |\n| --- | ---: |\n| Basic <img src=x onerror="window.__pwned=1"> | 5 |\n| **Pro** | 9 |\n\nThat is all.';

describe.skipIf(skip !== null)('console, chat page and widget fixes in Chromium', () => {
  let site: ModelSite;
  let ragdesk: OpenedRagdesk;
  let key: string;
  let datastoreId: string;
  let publicId: string;
  let privateId: string;
  let apiOrigin: string;
  let hostOrigin: string;
  let browser: Browser;

  beforeAll(async () => {
    site = await openModelSite('ragdesk-fixes-', { reply: () => TABLE_ANSWER });
    ragdesk = site.ragdesk;
    key = (await ragdesk.keys.create({ ownerId: 'site', name: 'fixes test', scopes: ['admin'] })).key;
    const datastore = await ragdesk.datastores.create({ name: 'Uploads' }, { ownerId: 'site' });
    datastoreId = datastore.id;
    const answers = await ragdesk.datastores.create({ name: 'Plans' }, { ownerId: 'site' });
    await answers.upsert([{ text: 'Basic costs 5, Pro costs 9.', name: 'plans.txt' }]);
    publicId = (
      await ragdesk.agents.create(
        { name: 'Plan helper', description: 'Answers about plans', visibility: 'public', datastoreIds: [answers.id] },
        { ownerId: 'site' },
      )
    ).id;
    privateId = (
      await ragdesk.agents.create(
        { name: 'Staff only', description: 'Internal', visibility: 'private', datastoreIds: [answers.id] },
        { ownerId: 'site' },
      )
    ).id;
    apiOrigin = await site.serve(
      createHttpHandler(ragdesk, { ui: true, cors: { origins: ['http://127.0.0.1:1'] }, logger: { error: () => undefined } }),
    );
    hostOrigin = await site.serve((_request, response) =>
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<!doctype html><html lang="en"><head><title>Host</title></head><body><main><h1>Host</h1><a href="#x">A link on the host</a></main><script src="${apiOrigin}/widget.js" data-agent-id="${publicId}" defer></script></body></html>`,
        ),
    );
    // The host site is one the agent lists, so its widget may use it.
    await ragdesk.agents.update(publicId, { description: 'Answers about plans', interfaceConfig: { authorizedDomains: [hostOrigin] } });
    browser = await site.browser();
  });

  afterAll(() => site?.close());

  async function signIn(path: string) {
    const page = await browser.page();
    await page.goto(apiOrigin);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Datastores' }).waitFor();
    await page.goto(`${apiOrigin}${path}`);
    return page;
  }

  it('24 files at once: the one refusal after the 20th is listed, and the list is fetched once after the batch, not per file', async () => {
    const page = await signIn(`/datastores/${datastoreId}`);
    await page.getByRole('heading', { name: 'Uploads' }).waitFor();
    // The order of datasource-list GETs against the upload POSTs.
    const events: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (request.method() === 'GET' && url.pathname === '/api/datasources') events.push('list');
    });
    page.on('requestfinished', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/datasources') events.push('upload');
    });
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/datasources') events.push('upload-start');
    });
    const files = Array.from({ length: 23 }, (_, index) => ({
      name: `note-${index + 1}.txt`,
      mimeType: 'text/plain',
      buffer: Buffer.from(`Note number ${index + 1}.`),
    }));
    files.push({ name: 'junk.bin', mimeType: 'application/octet-stream', buffer: Buffer.from(buildFixtures()['junk.bin'] as Uint8Array) });
    await page.setInputFiles('#file-picker', files);
    await expect.poll(() => page.locator('.upload-refused').count(), { timeout: 60_000 }).toBe(1);
    expect(await page.locator('.upload-refused').textContent()).toMatch(/junk\.bin.*refused: .+/);
    expect(await page.locator('.upload-summary').textContent()).toBe('1 of 24 refused');
    await expect.poll(() => page.locator('.upload-added').count(), { timeout: 60_000 }).toBe(23);
    await expect.poll(() => page.locator('tr[data-datasource]').count(), { timeout: 60_000 }).toBe(23);
    const sendStarts = events.indexOf('upload-start');
    const lastUpload = events.lastIndexOf('upload');
    expect(events.filter((event) => event === 'upload')).toHaveLength(24);
    // While the batch is in flight nothing refetches; right after it, one GET does.
    expect(events.slice(sendStarts, lastUpload).filter((event) => event === 'list')).toEqual([]);
    expect(events.slice(lastUpload).filter((event) => event === 'list').length).toBeGreaterThanOrEqual(1);
    await page.close();
  });

  it('the hidden file input never takes keyboard focus', async () => {
    const page = await signIn(`/datastores/${datastoreId}`);
    await page.getByRole('button', { name: 'Choose files…' }).focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.id')).not.toBe('file-picker');
    await page.close();
  });

  it('creating, saving from an /agents/{id} link and deleting say what happened and keep focus on that note', async () => {
    const page = await signIn('/agents');
    await page.getByRole('button', { name: 'New agent' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Temporary');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Created Temporary.');
    // Focus moves in an effect after the note renders: wait for it, not for the paint.
    await expect.poll(() => page.evaluate<string>('document.activeElement.className')).toBe('notice');

    await page.goto(`${apiOrigin}/agents/${publicId}`);
    await page.getByRole('heading', { name: 'Edit Plan helper' }).waitFor();
    await page.getByLabel('Description').fill('Answers about plans and prices');
    await page.getByRole('button', { name: 'Save agent' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Saved Plan helper.');
    expect(await page.locator('form[aria-labelledby="agent-form-title"]').count()).toBe(0);
    // Focus moves in an effect after the note renders: wait for it, not for the paint.
    await expect.poll(() => page.evaluate<string>('document.activeElement.className')).toBe('notice');

    await page.getByRole('button', { name: 'Delete Temporary' }).click();
    await page.getByRole('button', { name: 'Delete agent' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Deleted Temporary.');
    // Focus moves in an effect after the note renders: wait for it, not for the paint.
    await expect.poll(() => page.evaluate<string>('document.activeElement.className')).toBe('notice');
    await page.close();
  });

  it('a visitor sees the agent name on the chat page, and a GFM table in the answer as a table of text', async () => {
    const page = await browser.page();
    await page.goto(`${apiOrigin}/chat/${publicId}`);
    await expect.poll(() => page.locator('.topbar .agent-name').textContent()).toBe('Plan helper');
    await page.getByLabel('Your question').fill('What are the plans?');
    await page.keyboard.press('Enter');
    const table = page.locator('.turn-assistant table');
    await table.waitFor();
    expect(await table.locator('th').allTextContents()).toEqual(['Plan', 'Price']);
    expect(await table.locator('tbody tr').count()).toBe(2);
    expect(await table.locator('tbody td').first().textContent()).toBe('Basic <img src=x onerror="window.__pwned=1">');
    expect(await table.locator('tbody strong').textContent()).toBe('Pro');
    expect(await table.locator('img').count()).toBe(0);
    expect(await page.locator('.turn-assistant').textContent()).not.toContain('| ---');
    await page.close();
  });

  it('a visitor of a private agent is told it is private, not that a key was refused', async () => {
    const page = await browser.page();
    await page.goto(`${apiOrigin}/chat/${privateId}`);
    await page.getByLabel('Your question').fill('Hello?');
    await page.keyboard.press('Enter');
    await expect
      .poll(() =>
        page
          .locator('.turn-error')
          .textContent()
          .catch(() => ''),
      )
      .toBe('This assistant is private or not available.');
    await page.close();
  });

  it('the widget focuses the question on open, and Escape or the close button returns focus to the launcher', async () => {
    const page = await browser.page();
    await page.goto(hostOrigin);
    const bubble = page.locator('.bubble');
    await bubble.waitFor();
    const focused = () =>
      page.evaluate<string>(
        `(() => { const el = document.querySelector('[data-ragdesk-widget]').shadowRoot.activeElement; return el ? el.tagName + '.' + el.className : 'none'; })()`,
      );
    await bubble.click();
    await expect.poll(focused).toBe('TEXTAREA.');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('.panel').count()).toBe(0);
    await expect.poll(focused).toBe('BUTTON.bubble');
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('TEXTAREA.');
    await page.getByRole('button', { name: 'Close the chat' }).first().click();
    await expect.poll(() => page.locator('.panel').count()).toBe(0);
    await expect.poll(focused).toBe('BUTTON.bubble');
    await page.close();
  });

  for (const viewport of [
    { width: 1440, height: 900 },
    { width: 390, height: 844 },
  ]) {
    it(`axe finds no violation on the chat page (with an answer) and the open widget at ${viewport.width}×${viewport.height}`, async () => {
      const page = await browser.page(viewport);
      await page.goto(`${apiOrigin}/chat/${publicId}`);
      // The conversation of an earlier test comes back from storage: this answer is one more table.
      const tables = page.locator('.turn-assistant table');
      await page.getByLabel('Your question').fill('What are the plans?');
      // Send is enabled once the stored history is back.
      await page.locator('.chat-form button[type="submit"]:enabled').waitFor();
      const before = await tables.count();
      await page.keyboard.press('Enter');
      await expect.poll(() => tables.count()).toBe(before + 1);
      await page.locator('.chat-form button[type="submit"]').waitFor();
      expect(await axeViolations(page)).toEqual([]);

      await page.goto(hostOrigin);
      await page.locator('.bubble').click();
      await page.getByLabel('Your question').waitFor();
      expect(await axeViolations(page)).toEqual([]);
      await page.close();
    });
  }
});
