import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../adapters/http/index.js';
import type { OpenedRagdesk } from '../../adapters/node.js';
import { makePdf } from '../../fixtures/pdf-writer.js';
import { lastUserText } from '../../fixtures/openai-server.js';
import { browserSkipReason, shot, type Browser } from './browser.js';
import { openModelSite, type ModelSite } from './model-site.js';
const skip = browserSkipReason();
if (skip) console.log(`[skip] citations in the browser: ${skip}`);

const TOASTER = 'The toaster warranty lasts three years from the day of purchase.';
const BLENDER = 'The blender warranty lasts five years from the day of purchase.';

/**
 * The model cites the numbers the prompt gave the PDF and the text file (read from the prompt, as a
 * model would), adds markup that must stay text, and cites a number the answer has no source for.
 */
function reply(body: Parameters<typeof lastUserText>[0]): string {
  const prompt = lastUserText(body);
  const pdf = /\[(\d+)\] \(appliances\.pdf/.exec(prompt)?.[1] ?? '0';
  const text = /\[(\d+)\] \(blenders\.txt/.exec(prompt)?.[1] ?? '0';
  return `${TOASTER} [${pdf}] ${BLENDER} [${text}] <img src=x onerror="window.__pwned='answer';alert('answer')"> Ovens last forever [9].`;
}

describe.skipIf(skip !== null)('citations in the chat page and the widget', () => {
  let site: ModelSite;
  let ragdesk: OpenedRagdesk;
  let agentId: string;
  let apiOrigin: string;
  let hostOrigin: string;
  let browser: Browser;

  beforeAll(async () => {
    site = await openModelSite('ragdesk-citations-ui-', { reply });
    ragdesk = site.ragdesk;
    const datastore = await ragdesk.datastores.create({ name: 'Warranties' }, { ownerId: 'site' });
    const files = [
      {
        bytes: makePdf([
          ['Kettles', 'The kettle warranty lasts two years from the day of purchase.'],
          ['Toasters', TOASTER],
        ]),
        fileName: 'appliances.pdf',
      },
      {
        bytes: new TextEncoder().encode(`Blenders <script>window.__pwned='document';alert('document')</script>\n\n${BLENDER}`),
        fileName: 'blenders.txt',
      },
    ];
    for (const file of files) {
      const source = await ragdesk.datasources.create({ type: 'file', datastoreId: datastore.id, file });
      expect((await ragdesk.datasources.waitUntilSettled(source.id, 60_000)).status).toBe('synched');
    }
    agentId = (
      await ragdesk.agents.create(
        { name: 'Warranty helper', description: 'Answers from the warranties', visibility: 'public', datastoreIds: [datastore.id] },
        { ownerId: 'site' },
      )
    ).id;
    hostOrigin = await site.serve((_request, response) =>
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<!doctype html><html><body><h1>A site</h1><script src="${apiOrigin}/widget.js" data-agent-id="${agentId}" defer></script></body></html>`,
        ),
    );
    apiOrigin = await site.serve(createHttpHandler(ragdesk, { ui: true, cors: { origins: [hostOrigin] } }));
    browser = await site.browser();
  }, 120_000);

  afterAll(() => site?.close());

  /** Clicks each citation and checks the source it opens and the passage it marks. */
  async function expectCitationsOpenTheirSource(answer: Locator): Promise<void> {
    await answer.locator('.sources li').first().waitFor();
    // Two in-range citations are links; the out-of-range one is gone from the answer.
    expect(await answer.locator('a.cite').count()).toBe(2);
    expect(await answer.locator('.md').textContent()).not.toContain('[9]');
    expect(await answer.locator('.md').textContent()).toContain('<img src=x onerror=');
    expect(await answer.locator('.sources details[open]').count()).toBe(0);

    const toaster = answer.locator('a.cite').first();
    const pdfNumber = Number(await toaster.getAttribute('data-cite'));
    await toaster.click();
    const pdf = answer.locator(`.sources li[data-source="${pdfNumber}"]`);
    expect(await pdf.locator('summary').textContent()).toBe('appliances.pdf (pages 1, 2)');
    expect(await pdf.locator('details').getAttribute('open')).not.toBeNull();
    // Both pages are listed; the one the sentence comes from (page 2) is the one marked.
    expect(await pdf.locator('.fragment').count()).toBe(2);
    expect(await pdf.locator('.fragment.highlighted').textContent()).toContain('Page 2');
    expect(await pdf.locator('mark.quote').textContent()).toBe(TOASTER);
    expect(await answer.locator('.sources details[open]').count()).toBe(1);

    const blender = answer.locator('a.cite').nth(1);
    const textNumber = Number(await blender.getAttribute('data-cite'));
    expect(textNumber).not.toBe(pdfNumber);
    await blender.click();
    const text = answer.locator(`.sources li[data-source="${textNumber}"]`);
    expect(await text.locator('summary').textContent()).toBe('blenders.txt');
    expect(await text.locator('mark.quote').textContent()).toBe(BLENDER);
    // Document text with markup is shown as text.
    expect(await text.locator('.fragment.highlighted').textContent()).toContain("<script>window.__pwned='document'");
    expect(await answer.locator('.sources details[open]').count()).toBe(1);
    expect(await answer.locator('img, script').count()).toBe(0);
  }

  it('the chat page: [n] opens source n and marks the quoted passage', async () => {
    const page = await browser.page();
    await page.goto(`${apiOrigin}/chat/${agentId}`);
    await page.getByLabel('Your question').fill('How long do the toaster and blender warranties last?');
    await page.keyboard.press('Enter');
    await expectCitationsOpenTheirSource(page.locator('.turn-assistant').last());
    await shot(page, '30-citations-chat');
    expect(page.dialogs).toEqual([]);
    expect(await page.evaluate('window.__pwned === undefined')).toBe(true);
    await page.close();
  });

  it('the widget on another origin: the same, inside its shadow root', async () => {
    const page = await browser.page();
    await page.goto(hostOrigin);
    await page.locator('.bubble').click();
    await page.getByLabel('Your question').fill('How long do the toaster and blender warranties last?');
    await page.keyboard.press('Enter');
    await expectCitationsOpenTheirSource(page.locator('.turn-assistant').last());
    await shot(page, '31-citations-widget');
    expect(page.dialogs).toEqual([]);
    expect(await page.evaluate('window.__pwned === undefined')).toBe(true);
    await page.close();
  });
});
