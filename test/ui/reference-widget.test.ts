import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../../fixtures/openai-server.js';
import { tempDir } from '../helpers/setups.js';
import { browserSkipReason, launchBrowser, shot, type Browser } from './browser.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { listenLocal } from '../helpers/http-server.js';

const skip = browserSkipReason();

const ITINERARY_MARK = 'ferry to Skye leaves at 07:40';
const INTERFACE = {
  displayName: 'Harbour desk',
  primaryColor: '#0b7285',
  initialMessages: ['Ahoy! Ask me about crossings.', 'Attach your itinerary if you have one.'],
  position: 'left',
};

/**
 * The request sequence of the reference service's chat widget, replayed by a page of another
 * origin in Chromium (our own script, written from how that widget behaves): on mount it reads the
 * agent without a key and draws itself from `interfaceConfig` (or draws nothing if that fails);
 * a question with a file asks for upload links, PUTs the file to `signedUrl`, and streams the query
 * with `fileUrl` as the attachment, then shows the sources when the agent's `includeSources` says so.
 */
function referenceWidgetPage(api: string, agentId: string): string {
  const script = `
const API = ${JSON.stringify(api)}, AGENT = ${JSON.stringify(agentId)};
const log = (text, role) => { const p = document.createElement('p'); p.className = role; p.textContent = text; document.getElementById('log').append(p); return p; };
let agent = null;
async function mount() {
  const response = await fetch(API + '/api/agents/' + AGENT);
  if (!response.ok) { document.body.dataset.state = 'hidden-' + response.status; return; }
  agent = await response.json();
  const config = agent.interfaceConfig || {};
  document.getElementById('title').textContent = config.displayName || agent.name;
  document.getElementById('bubble').style.backgroundColor = config.primaryColor || '';
  document.getElementById('bubble').dataset.position = config.position || 'right';
  for (const message of config.initialMessages || []) log(message, 'initial');
  document.body.dataset.state = 'mounted';
}
async function ask(event) {
  event.preventDefault();
  const query = document.getElementById('question').value;
  const files = [...document.getElementById('files').files];
  const conversationId = 'ck' + crypto.randomUUID().replaceAll('-', '').slice(0, 23);
  log(query, 'human');
  let attachments = [];
  if (files.length > 0) {
    const links = await (await fetch(API + '/api/generate-upload-links', {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(files.map((file) => ({ case: 'chatUpload', conversationId, agentId: AGENT, fileName: file.name, mimeType: file.type }))),
    })).json();
    await Promise.all(links.map(({ signedUrl }, index) => fetch(signedUrl, { method: 'PUT', headers: { 'Content-Type': files[index].type }, body: files[index] })));
    attachments = files.map((file, index) => ({ name: file.name, url: links[index].fileUrl, size: file.size, mimeType: file.type }));
  }
  const response = await fetch(API + '/api/agents/' + AGENT + '/query', {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ streaming: true, query, visitorId: '', conversationId, channel: 'website', attachments, attachmentsForAI: [] }),
  });
  const answer = log('', 'agent');
  let buffer = '', endpoint = '';
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let cut;
    while ((cut = buffer.indexOf('\\n\\n')) >= 0) {
      const frame = buffer.slice(0, cut); buffer = buffer.slice(cut + 2);
      const name = /^event: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1] ?? '';
      if (name === 'answer') answer.textContent += decodeURIComponent(data);
      if (name === 'endpoint_response') endpoint += decodeURIComponent(data);
    }
  }
  const result = JSON.parse(endpoint);
  if (agent.includeSources) for (const source of result.sources) log(source.datasource_name, 'source');
  window.__result = result;
  document.body.dataset.state = 'answered';
}
document.getElementById('form').addEventListener('submit', ask);
mount();`;
  return `<!doctype html><html><head><title>A site with the reference widget</title></head><body>
<div id="bubble"><h2 id="title"></h2><div id="log"></div>
<form id="form"><input id="question" aria-label="Question"><input id="files" type="file" aria-label="Attach"><button>Send</button></form></div>
<script>${script}</script></body></html>`;
}

function ourWidgetPage(api: string, agentId: string): string {
  return `<!doctype html><html><head><title>A site with ragdesk's widget</title></head><body>
<script src="${api}/widget.js" data-agent-id="${agentId}" defer></script></body></html>`;
}

describe.skipIf(skip !== null)("the reference widget's requests, and ragdesk's own widget, against `ragdesk serve --cors`", () => {
  const temp = tempDir('ragdesk-reference-widget-');
  let model: OpenAIServer;
  let serve: ServeProcess;
  let site: Server;
  let siteOrigin: string;
  let agentId: string;
  let privateAgentId: string;
  let browser: Browser;
  let pages: Record<string, string> = {};

  beforeAll(async () => {
    // The site is up first: its origin goes into --cors.
    site = createServer((request, response) => {
      const page = pages[request.url ?? ''];
      if (page === undefined) response.writeHead(404).end();
      else response.writeHead(200, { 'content-type': 'text/html' }).end(page);
    });
    siteOrigin = await listenLocal(site);
    model = await startOpenAIServer({ reply: () => 'The 07:40 ferry from Mallaig, as your itinerary says.' });
    serve = await startServe(['--data-dir', join(temp.dir, 'data'), '--owner', 'harbour', '--cors', siteOrigin, '--no-preload'], {
      OPENAI_API_KEY: 'test-key',
      OPENAI_BASE_URL: model.baseURL,
    });
    const call = async <T>(method: string, path: string, body: unknown): Promise<T> => {
      const response = await fetch(`${serve.origin}${path}`, {
        method,
        headers: { authorization: `Bearer ${serve.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status, `${method} ${path}`).toBe(200);
      return (await response.json()) as T;
    };
    const datastore = await call<{ id: string }>('POST', '/api/datastores', { name: 'Crossings' });
    await call('POST', `/api/external/datastores/upsert/${datastore.id}`, {
      documents: [{ name: 'timetable.md', text: 'Ferries to Skye sail from Mallaig; book ahead in summer.' }],
    });
    const tools = [{ type: 'datastore', datastoreId: datastore.id }];
    agentId = (
      await call<{ id: string }>('POST', '/api/agents', {
        name: 'Harbour',
        description: 'Crossings',
        visibility: 'public',
        includeSources: true,
        interfaceConfig: INTERFACE,
        tools,
      })
    ).id;
    privateAgentId = (await call<{ id: string }>('POST', '/api/agents', { name: 'Office', description: 'd', tools })).id;
    pages = {
      '/reference': referenceWidgetPage(serve.origin, agentId),
      '/reference-private': referenceWidgetPage(serve.origin, privateAgentId),
      '/ours': ourWidgetPage(serve.origin, agentId),
    };
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    site?.closeAllConnections();
    await new Promise((resolve) => site?.close(resolve));
    await model?.close();
    temp.remove();
  });

  it('mounts without a key from interfaceConfig, uploads the attachment through upload links, answers from it with sources', async () => {
    const page = await browser.page();
    await page.goto(`${siteOrigin}/reference`);
    await page.waitForSelector('body[data-state="mounted"]');
    expect(await page.locator('#title').textContent()).toBe('Harbour desk');
    expect(await page.locator('.initial').allTextContents()).toEqual(INTERFACE.initialMessages);
    expect(await page.evaluate<string>(`getComputedStyle(document.getElementById('bubble')).backgroundColor`)).toBe('rgb(11, 114, 133)');
    expect(await page.locator('#bubble').getAttribute('data-position')).toBe('left');

    await page.getByLabel('Question').fill('When does my ferry leave?');
    await page.getByLabel('Attach').setInputFiles({
      name: 'itinerary.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from(`# Itinerary\nThe ${ITINERARY_MARK} from Mallaig.`),
    });
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForSelector('body[data-state="answered"]');
    expect(await page.locator('.agent').textContent()).toBe('The 07:40 ferry from Mallaig, as your itinerary says.');
    expect(await page.locator('.source').allTextContents()).toEqual(['timetable.md']);
    expect(await page.evaluate<string[]>('window.__result.warnings')).toEqual([]);
    // The file reached the model, read from ragdesk's own store (its URL is on 127.0.0.1, which the
    // web loader never fetches).
    expect(JSON.stringify(model.chatRequests().at(-1)?.messages)).toContain(ITINERARY_MARK);
    expect(page.errors).toEqual([]);
    await shot(page, '20-reference-widget');
    await page.close();
  });

  it('a private agent is not drawn: the mount fetch is refused as for an unknown agent', async () => {
    const page = await browser.page();
    await page.goto(`${siteOrigin}/reference-private`);
    await page.waitForSelector('body[data-state^="hidden-"]');
    expect(await page.evaluate<string>('document.body.dataset.state')).toBe('hidden-401');
    await page.close();
  });

  it("ragdesk's own widget takes its title, colour, first messages and side from interfaceConfig", async () => {
    const page = await browser.page();
    await page.goto(`${siteOrigin}/ours`);
    const inShadow = (expression: string) =>
      page.evaluate<string>(`(() => { const root = document.querySelector('[data-ragdesk-widget]').shadowRoot; return ${expression}; })()`);
    await expect.poll(() => inShadow(`getComputedStyle(root.querySelector('.bubble')).backgroundColor`)).toBe('rgb(11, 114, 133)');
    const bubble = page.locator('.bubble');
    expect(await bubble.getAttribute('aria-label')).toBe('Harbour desk');
    const box = await bubble.boundingBox();
    expect(box!.x).toBeLessThan(100);
    await bubble.click();
    expect(await page.locator('.panel-title').textContent()).toBe('Harbour desk');
    expect(await page.locator('.initial-message').allTextContents()).toEqual(INTERFACE.initialMessages);
    await page.getByLabel('Your question').fill('Which port for Skye?');
    await page.keyboard.press('Enter');
    await page.locator('.turn-assistant:not(.initial-message) .sources li').first().waitFor();
    await shot(page, '21-own-widget-interface-config');
    await page.close();
  });
});
