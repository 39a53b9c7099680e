/**
 * The agent form's model list on an offline server (no OpenAI key: the extractive answerer), in
 * Chromium: only what the server runs is offered, and an agent saved earlier with a hosted model
 * keeps it visible, marked as not available here.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../adapters/http/index.js';
import { openRagdesk, type OpenedRagdesk } from '../../adapters/node.js';
import { openaiChat } from '../../adapters/openai/index.js';
import { tempDir } from '../helpers/setups.js';
import { seriousViolations } from './axe.js';
import { browserSkipReason, launchBrowser, type Browser } from './browser.js';

const skip = browserSkipReason();

interface Option {
  value: string;
  label: string;
}

describe.skipIf(skip !== null)('the model list on an offline server in Chromium', () => {
  const temp = tempDir('ragdesk-models-');
  const dataDir = join(temp.dir, 'data');
  let ragdesk: OpenedRagdesk;
  let server: Server;
  let origin: string;
  let key: string;
  let hostedId: string;
  let browser: Browser;

  beforeAll(async () => {
    // An agent saved while the data folder was served with a hosted model...
    const before = openRagdesk({ dataDir, env: {}, chat: openaiChat({ apiKey: 'unused', baseURL: 'http://127.0.0.1:9/v1' }) });
    hostedId = (await before.agents.create({ name: 'Hosted helper', description: 'd', modelName: 'gpt_4' }, { ownerId: 'site' })).id;
    await before.close();
    // ...then served offline (no OPENAI_API_KEY: the extractive answerer).
    ragdesk = openRagdesk({ dataDir, env: {} });
    key = (await ragdesk.keys.create({ ownerId: 'site', name: 'models test', scopes: ['admin'] })).key;
    server = createServer(createHttpHandler(ragdesk, { ui: true, logger: { error: () => undefined } }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    if (server) await new Promise((resolve) => server.close(resolve));
    await ragdesk?.close();
    temp.remove();
  });

  async function open(path: string) {
    const page = await browser.page({ width: 1024, height: 800 });
    await page.goto(`${origin}/`);
    await page.evaluate(`sessionStorage.setItem('ragdesk.apiKey', ${JSON.stringify(key)})`);
    await page.goto(`${origin}${path}`);
    return page;
  }

  /** The select's options once the server's list arrived (the select is disabled until then). */
  async function modelOptions(page: Awaited<ReturnType<typeof open>>): Promise<{ value: string; options: Option[] }> {
    const select = page.locator('#agent-model:not([disabled])');
    await select.waitFor();
    return select.evaluate((element) => {
      const shown = element as unknown as { value: string; options: ArrayLike<{ value: string; text: string }> };
      return { value: shown.value, options: Array.from(shown.options, (option) => ({ value: option.value, label: option.text })) };
    });
  }

  it('offers a new agent only the offline answerer, and creates it with that', async () => {
    const page = await open('/agents');
    await page.getByRole('button', { name: 'New agent' }).click();
    const { value, options } = await modelOptions(page);
    expect(options).toEqual([{ value: 'local_extractive', label: 'Offline answerer (quotes the documents)' }]);
    expect(value).toBe('local_extractive');
    expect(await seriousViolations(page)).toEqual([]);

    await page.locator('#agent-name').fill('Offline helper');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('status').filter({ hasText: 'Created Offline helper.' }).waitFor();
    const created = (await ragdesk.agents.list({ ownerId: 'site' })).find((agent) => agent.name === 'Offline helper');
    expect(created?.modelName).toBe('local_extractive');
    expect(page.errors).toEqual([]);
    expect(page.dialogs).toEqual([]);
  });

  it("keeps a saved agent's hosted model visible, marked not available, and saves it unchanged", async () => {
    const page = await open(`/agents/${hostedId}`);
    const { value, options } = await modelOptions(page);
    expect(value).toBe('gpt_4');
    expect(options).toEqual([
      { value: 'gpt_4', label: 'GPT-4 (not available on this server)' },
      { value: 'local_extractive', label: 'Offline answerer (quotes the documents)' },
    ]);
    await page.locator('#agent-description').fill('kept');
    await page.getByRole('button', { name: 'Save agent' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved Hosted helper.' }).waitFor();
    expect(await ragdesk.agents.get(hostedId)).toMatchObject({ description: 'kept', modelName: 'gpt_4' });

    // Switching it to the model the server runs.
    await page.getByRole('button', { name: 'Edit Hosted helper' }).click();
    await modelOptions(page);
    await page.locator('#agent-model').selectOption('local_extractive');
    await page.getByRole('button', { name: 'Save agent' }).click();
    await expect.poll(async () => (await ragdesk.agents.get(hostedId)).modelName).toBe('local_extractive');
    expect(page.errors).toEqual([]);
  });
});
