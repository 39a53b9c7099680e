import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../adapters/http/index.js';
import type { OpenedRagdesk } from '../../adapters/node.js';
import type { ChatCompletionBody } from '../../fixtures/openai-server.js';
import { browserSkipReason, shot, type Browser } from './browser.js';
import { openModelSite, type ModelSite } from './model-site.js';
const skip = browserSkipReason();

/**
 * The model repeats the questions of the conversation it was given before the current one: what
 * an answer shows is exactly the memory the server sent with it.
 */
function echoHistory(body: ChatCompletionBody): string {
  const earlier = body.messages.slice(0, -1).filter((message) => message.role === 'user');
  return `Earlier questions: ${earlier.map((message) => message.content).join(' / ') || 'none'}.`;
}

function hostPage(widgetSrc: string, agentId: string): string {
  return `<!doctype html><html><head><title>A shop</title></head><body><h1>A shop with a chat bubble</h1>
<script src="${widgetSrc}" data-agent-id="${agentId}" data-title="Ask the shop" defer></script></body></html>`;
}

describe.skipIf(skip !== null)('conversations in the browser: kept over reloads, New conversation, thumbs, the console inbox', () => {
  let site: ModelSite;
  let ragdesk: OpenedRagdesk;
  let key: string;
  let agentId: string;
  let apiOrigin: string;
  let hostOrigin: string;
  let browser: Browser;

  beforeAll(async () => {
    site = await openModelSite('ragdesk-conversations-ui-', { reply: echoHistory });
    ragdesk = site.ragdesk;
    key = (await ragdesk.keys.create({ ownerId: 'shop', name: 'ui test', scopes: ['admin'] })).key;
    const datastore = await ragdesk.datastores.create({ name: 'Shop' }, { ownerId: 'shop' });
    await datastore.upsert([{ text: 'Parcels ship within two days. Returns are free for thirty days.', name: 'shipping.md' }]);
    agentId = (
      await ragdesk.agents.create(
        { name: 'Shop helper', description: 'Answers about the shop', visibility: 'public', datastoreIds: [datastore.id] },
        { ownerId: 'shop' },
      )
    ).id;
    hostOrigin = await site.serve((_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html' }).end(hostPage(`${apiOrigin}/widget.js`, agentId)),
    );
    apiOrigin = await site.serve(createHttpHandler(ragdesk, { ui: true, cors: { origins: [hostOrigin] } }));
    browser = await site.browser();
  });

  afterAll(() => site?.close());

  /** Asks in the chat (page or widget root) and waits for the complete answer (its thumbs appear). */
  async function ask(page: Page, question: string): Promise<string> {
    const before = await page.locator('.turn-assistant .feedback').count();
    await page.getByLabel('Your question').fill(question);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('.turn-assistant .feedback').count()).toBe(before + 1);
    return (await page.locator('.turn-assistant').last().locator('.md').textContent()) ?? '';
  }
  const questions = (page: Page) => page.locator('.turn-user .turn-text').allTextContents();

  it('the chat page keeps the conversation over a reload, continues it, and New conversation really starts over', async () => {
    const page = await browser.page();
    await page.goto(`${apiOrigin}/chat/${agentId}`);
    expect(await ask(page, 'When do parcels ship?')).toContain('Earlier questions: none.');
    expect(await ask(page, 'Are returns free?')).toContain('Earlier questions: When do parcels ship?.');
    const saved = JSON.parse(await page.evaluate<string>(`localStorage.getItem('ragdesk.conversation.${agentId}')`)) as {
      conversationId: string;
      visitorId: string;
    };
    expect(saved.conversationId).toMatch(/\S/);

    await page.reload();
    await expect.poll(() => questions(page)).toEqual(['When do parcels ship?', 'Are returns free?']);
    expect(await page.locator('.turn-assistant .md').first().textContent()).toContain('Earlier questions: none.');
    // The third question continues the same conversation on the server.
    expect(await ask(page, 'How long do I have?')).toContain('Earlier questions: When do parcels ship? / Are returns free?.');
    await shot(page, '20-chat-history');

    await page.getByRole('button', { name: 'New conversation' }).click();
    expect(await questions(page)).toEqual([]);
    expect(await ask(page, 'Hello again')).toContain('Earlier questions: none.');
    const after = JSON.parse(await page.evaluate<string>(`localStorage.getItem('ragdesk.conversation.${agentId}')`)) as typeof saved;
    expect(after.conversationId).not.toBe(saved.conversationId);
    expect(after.visitorId).toBe(saved.visitorId);
    await page.reload();
    await expect.poll(() => questions(page)).toEqual(['Hello again']);
    // New conversation works right after a reload too (it was disabled there before).
    await page.getByRole('button', { name: 'New conversation' }).click();
    expect(await ask(page, 'Fresh start')).toContain('Earlier questions: none.');

    // The earlier conversation is still stored whole on the server.
    const old = await ragdesk.agents.conversations.get(saved.conversationId);
    expect(old.messages.filter((message) => message.from === 'human').map((message) => message.text)).toEqual([
      'How long do I have?',
      'Are returns free?',
      'When do parcels ship?',
    ]);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('the chat works where the page may not use localStorage, keeping the conversation in memory', async () => {
    const page = await browser.page();
    // As in a sandboxed frame or with site storage blocked: reading localStorage throws.
    await page.addInitScript(
      `Object.defineProperty(window, 'localStorage', { get() { throw new DOMException('The operation is insecure.', 'SecurityError'); } });`,
    );
    await page.goto(`${apiOrigin}/chat/${agentId}`);
    expect(await ask(page, 'First in memory')).toContain('Earlier questions: none.');
    expect(await ask(page, 'Second in memory')).toContain('Earlier questions: First in memory.');
    await page.reload();
    await page.getByLabel('Your question').waitFor();
    expect(await questions(page)).toEqual([]);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('the widget keeps its conversation over a reload of the site and takes thumbs with a comment', async () => {
    const page = await browser.page();
    await page.goto(hostOrigin);
    await page.locator('.bubble').click();
    expect(await ask(page, 'Widget question one')).toContain('Earlier questions: none.');
    expect(await ask(page, 'Widget question two')).toContain('Earlier questions: Widget question one.');

    await page.reload();
    await page.locator('.bubble').click();
    await expect.poll(() => questions(page)).toEqual(['Widget question one', 'Widget question two']);
    expect(await ask(page, 'Widget question three')).toContain('Earlier questions: Widget question one / Widget question two.');

    // Thumbs down on the last answer, with a comment; the mark is stored and shown again after a reload.
    const last = page.locator('.turn-assistant').last();
    await last.getByRole('button', { name: 'Bad answer' }).click();
    await expect.poll(() => last.getByRole('button', { name: 'Bad answer' }).getAttribute('aria-pressed')).toBe('true');
    await last.getByLabel('Comment on this answer').fill('It should say thirty days');
    await last.getByRole('button', { name: 'Send' }).click();
    await last.getByText('Thanks, noted.').waitFor();
    // Thumbs up on the first answer.
    await page.locator('.turn-assistant').first().getByRole('button', { name: 'Good answer' }).click();
    await expect
      .poll(() => page.locator('.turn-assistant').first().getByRole('button', { name: 'Good answer' }).getAttribute('aria-pressed'))
      .toBe('true');
    await shot(page, '21-widget-thumbs');

    const saved = JSON.parse(await page.evaluate<string>(`localStorage.getItem('ragdesk.conversation.${agentId}')`)) as {
      conversationId: string;
    };
    const stored = await ragdesk.agents.conversations.get(saved.conversationId);
    const answers = stored.messages.filter((message) => message.from === 'agent');
    expect(answers.map((message) => [message.eval, message.evalComment])).toEqual([
      ['bad', 'It should say thirty days'],
      [null, null],
      ['good', null],
    ]);
    await page.reload();
    await page.locator('.bubble').click();
    await expect
      .poll(() => page.locator('.turn-assistant').last().getByRole('button', { name: 'Bad answer' }).getAttribute('aria-pressed'))
      .toBe('true');

    // Pressing the same thumb again removes the mark.
    await page.locator('.turn-assistant').first().getByRole('button', { name: 'Good answer' }).click();
    await expect.poll(async () => (await ragdesk.agents.conversations.get(saved.conversationId)).messages.at(-2)?.eval).toBeNull();

    // New conversation in the widget: the next answer does not see the old turns.
    await page.getByRole('button', { name: 'New conversation' }).click();
    expect(await ask(page, 'A new widget topic')).toContain('Earlier questions: none.');
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('the console lists an agent’s conversations with the marked ones first, reads them with their feedback, exports and deletes', async () => {
    const page = await browser.page();
    await page.goto(`${apiOrigin}/`);
    await page.evaluate(`sessionStorage.setItem('ragdesk.apiKey', ${JSON.stringify(key)})`);
    await page.goto(`${apiOrigin}/agents`);
    await page.getByRole('link', { name: 'Conversations' }).click();
    await page.getByRole('heading', { name: 'Conversations of Shop helper' }).waitFor();

    const marked = page.getByRole('region', { name: 'Marked answers' });
    const others = page.getByRole('region', { name: 'Other conversations' });
    await expect.poll(() => marked.locator('.title').allTextContents()).toEqual(['Widget question one']);
    const rest = await others.locator('.title').allTextContents();
    expect(rest).toContain('When do parcels ship?');
    expect(rest).toContain('Hello again');
    expect(rest).not.toContain('Widget question one');

    await marked.getByRole('button', { name: 'Read' }).click();
    const transcript = page.getByRole('region', { name: 'Conversation' });
    await transcript.getByText('Marked bad: “It should say thirty days”').waitFor();
    expect(await transcript.locator('.turn-user .turn-text').allTextContents()).toEqual([
      'Widget question one',
      'Widget question two',
      'Widget question three',
    ]);
    await shot(page, '22-console-inbox', { fullPage: true });
    // The inbox has its own address: a reload comes back to it.
    await page.reload();
    await expect.poll(() => marked.locator('.title').allTextContents()).toEqual(['Widget question one']);

    // Export: one JSON line per conversation, each with its messages oldest first and the feedback.
    const total = (await ragdesk.agents.conversations.list(agentId, { limit: 100 })).conversations.length;
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export JSON Lines' }).click()]);
    const lines = readFileSync(await download.path(), 'utf8')
      .trimEnd()
      .split('\n');
    expect(lines).toHaveLength(total);
    const exported = lines.map(
      (line) => JSON.parse(line) as { messages: { from: string; text: string; eval: string | null; evalComment: string | null }[] },
    );
    const widget = exported.find((conversation) => conversation.messages[0]?.text === 'Widget question one')!;
    expect(widget.messages.map((message) => message.from).slice(0, 2)).toEqual(['human', 'agent']);
    expect(widget.messages.find((message) => message.eval === 'bad')?.evalComment).toBe('It should say thirty days');

    // Delete the marked conversation: gone from the inbox and from the server.
    const markedId = (await ragdesk.agents.conversations.list(agentId, { feedback: 'any' })).conversations[0]!.id;
    await marked.getByRole('button', { name: /Delete the conversation/ }).click();
    await page.getByRole('button', { name: 'Delete conversation' }).click();
    await marked.getByText('No answer was marked yet.').waitFor();
    expect(await ragdesk.agents.conversations.find(markedId)).toBeNull();
    expect(page.errors).toEqual([]);
    expect(page.dialogs).toEqual([]);
    await page.close();
  });

  it('a conversation deleted on the server is dropped by the widget, which starts afresh', async () => {
    const page = await browser.page();
    await page.goto(hostOrigin);
    const saved = () => page.evaluate<string | null>(`localStorage.getItem('ragdesk.conversation.${agentId}')`);
    const before = JSON.parse((await saved()) ?? '{}') as { conversationId: string; visitorId: string };
    expect((await ragdesk.agents.conversations.get(before.conversationId)).messages.length).toBeGreaterThan(0);
    await ragdesk.agents.conversations.delete(before.conversationId);
    await page.locator('.bubble').click();
    await expect.poll(async () => (JSON.parse((await saved()) ?? '{}') as { conversationId?: string }).conversationId).toBeUndefined();
    expect(await questions(page)).toEqual([]);
    expect(await ask(page, 'After the deletion')).toContain('Earlier questions: none.');
    const after = JSON.parse((await saved()) ?? '{}') as { conversationId: string; visitorId: string };
    expect(after.conversationId).not.toBe(before.conversationId);
    expect(after.visitorId).toBe(before.visitorId);
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
