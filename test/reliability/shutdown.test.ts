/**
 * Graceful shutdown: `close()` refuses new calls with `closed`, lets calls in
 * progress finish, parks running syncs as `pending`, cancels model calls, flushes the index; a
 * reopen continues where it stopped. Also the recovery of what a crash leaves that no job covers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { fileLoading } from '../../adapters/loaders/index.js';
import { localEmbeddings } from '../../adapters/local/index.js';
import { openaiChat } from '../../adapters/openai/index.js';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import { webLoader } from '../../adapters/web/index.js';
import { checkConsistency } from '../../benchmarks/crash/checks.js';
import { INTERRUPTED_UPSERT } from '../../src/datasources/interrupted.js';
import { newDatasource } from '../../src/datasources/new-datasource.js';
import { createRagdesk, type Ragdesk, type RagdeskError } from '../../src/index.js';
import { startOpenAIServer, type OpenAIServer } from '../../fixtures/openai-server.js';
import { tempDir } from '../helpers/setups.js';

function open(dir: string, chatBaseURL?: string): Ragdesk {
  return createRagdesk({
    ...sqliteStores({ path: join(dir, 'ragdesk.db') }),
    index: hnswIndex({ dir: join(dir, 'indexes') }),
    embeddings: localEmbeddings(),
    files: fileLoading(),
    web: webLoader({ allowPrivateNetwork: true, timeoutMs: 5_000 }),
    jobs: { retry: { baseDelayMs: 20, maxAttempts: 3 } },
    ...(chatBaseURL ? { chat: openaiChat({ apiKey: 'test-key', baseURL: chatBaseURL, maxRetries: 0 }) } : {}),
  });
}

/** The data directory opened by the adapters alone: store and index agree, nothing left to do, index loaded (flushed). */
async function inspect(dir: string) {
  const { retrieval, accounts } = sqliteStores({ path: join(dir, 'ragdesk.db') });
  const index = hnswIndex({ dir: join(dir, 'indexes') });
  try {
    return await checkConsistency(retrieval, index, { settled: true });
  } finally {
    await index.close();
    await retrieval.close();
    await accounts.close();
  }
}

const docs = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => ({
    text: `Document ${from + i} about ${['glaciers', 'volcanoes', 'reefs'][i % 3]} and more words ${'filler '.repeat(i % 20)}`,
  }));

describe('graceful close', () => {
  let temp: ReturnType<typeof tempDir>;
  let llm: OpenAIServer;
  let site: Server;
  let origin: string;
  let pageDelayMs = 0;

  beforeAll(async () => {
    llm = await startOpenAIServer({ reply: () => 'one two three four five six seven eight nine ten eleven twelve' });
    site = createServer((request, response) => {
      const path = request.url ?? '/';
      if (path === '/sitemap.xml') {
        const urls = [1, 2, 3, 4].map((page) => `<url><loc>${origin}/page/${page}</loc></url>`).join('');
        response
          .writeHead(200, { 'content-type': 'application/xml' })
          .end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`);
        return;
      }
      setTimeout(() => {
        response
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<html><head><title>${path}</title></head><body><main><p>Page ${path} about harbours and lanterns.</p></main></body></html>`,
          );
      }, pageDelayMs);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await llm.close();
    site.closeAllConnections();
    await new Promise((resolve) => site.close(resolve));
  });
  beforeEach(() => {
    temp = tempDir('ragdesk-close-');
    llm.reset();
    pageDelayMs = 0;
  });
  afterEach(() => temp.remove());

  it('lets an upsert in progress finish, refuses every new call with closed, and flushes the index', async () => {
    const ragdesk = open(temp.dir);
    const datastore = await ragdesk.datastores.create({ name: 'kb' });
    const agent = await ragdesk.agents.create({ name: 'a', description: 'd', datastoreIds: [datastore.id] });
    const upsert = datastore.upsert(docs(150));
    await new Promise((resolve) => setTimeout(resolve, 30)); // chunking and embedding are under way
    const closing = ragdesk.close();
    const refused = await Promise.allSettled([
      datastore.upsert(docs(1, 500)),
      datastore.query({ query: 'glaciers' }),
      ragdesk.datastores.create({ name: 'late' }),
      ragdesk.datastores.list(),
      ragdesk.datasources.create({ type: 'web_page', datastoreId: datastore.id, config: { source_url: `${origin}/page/1` } }),
      ragdesk.agents.list(),
      ragdesk.keys.create({ ownerId: 'owner', name: 'late' }),
    ]);
    expect(refused.map((result) => (result.status === 'rejected' ? (result.reason as RagdeskError).code : 'fulfilled'))).toEqual(
      Array(7).fill('closed'),
    );
    expect((await upsert).ids).toHaveLength(150);
    await closing;
    await ragdesk.close(); // idempotent
    await expect(ragdesk.agents.query(agent.id, { query: 'x' })).rejects.toMatchObject({ code: 'closed' });

    const report = await inspect(temp.dir);
    expect(report.failures).toEqual([]);
    expect(report.statuses).toEqual({ synched: 150 });
    // close() wrote the index: it loads as it is, no rebuild.
    expect(report.opens.map((entry) => entry.result.rebuilt)).toEqual([false]);
  });

  it('parks a site sync interrupted by close and finishes it after the reopen, with each page once', async () => {
    let ragdesk = open(temp.dir);
    const datastore = await ragdesk.datastores.create({ name: 'site' });
    pageDelayMs = 400;
    const running = new Promise<void>((resolve) => ragdesk.datasources.events.on('status', (event) => event.to === 'running' && resolve()));
    const created = await ragdesk.datasources.create({
      type: 'web_site',
      datastoreId: datastore.id,
      config: { sitemap: `${origin}/sitemap.xml` },
    });
    await running;
    await ragdesk.close();
    // Parked: the site and its job wait in `pending` for the next open.
    expect((await inspect(temp.dir)).failures).toEqual([
      expect.stringContaining(`${created.id} (web_site) stuck in pending`),
      expect.stringContaining('1 job(s) still pending'),
    ]);

    pageDelayMs = 0;
    ragdesk = open(temp.dir);
    try {
      expect((await ragdesk.datasources.waitUntilSettled(created.id)).status).toBe('synched');
      expect((await ragdesk.datasources.history(created.id)).map((event) => event.to)).toEqual([
        'pending',
        'running',
        'pending',
        'running',
        'synched',
      ]);
      const pages = (await ragdesk.datasources.list(datastore.id)).filter((source) => source.groupId === created.id);
      expect(pages.map((page) => page.config.source_url).sort()).toEqual([1, 2, 3, 4].map((page) => `${origin}/page/${page}`));
    } finally {
      await ragdesk.close();
    }
    expect((await inspect(temp.dir)).failures).toEqual([]);
  });

  it('ends an agent stream with closed, cancels the model call and stores nothing; never waits for an idle consumer', async () => {
    llm.configure({ interTokenDelayMs: 400, reply: () => 'word '.repeat(60) });
    const ragdesk = open(temp.dir, llm.baseURL);
    const datastore = await ragdesk.datastores.create({ name: 'kb' });
    await datastore.upsert(docs(3));
    const agent = await ragdesk.agents.create({ name: 'a', description: 'd', datastoreIds: [datastore.id] });
    const idle = await ragdesk.agents.openStream(agent.id, { query: 'never read' }); // opened, never consumed
    const stream = (await ragdesk.agents.openStream(agent.id, { query: 'glaciers?' }))[Symbol.asyncIterator]();
    const first = await stream.next();
    expect(first.value).toMatchObject({ type: 'answer' });
    const started = performance.now();
    const closing = ragdesk.close();
    let failure: unknown;
    try {
      while (!(await stream.next()).done);
    } catch (error) {
      failure = error;
    }
    expect(failure).toMatchObject({ code: 'closed' });
    // At once (tens of ms), not when the answer would have ended: 59 more pieces at 400 ms, 24 s.
    expect(performance.now() - started).toBeLessThan(10_000);
    await closing;
    await llm.nextDisconnect(10_000); // the upstream request was cancelled, not left running
    void idle;

    const { retrieval, accounts: store } = sqliteStores({ path: join(temp.dir, 'ragdesk.db') });
    await retrieval.close();
    try {
      for (const conversation of await store.listConversations(agent.id))
        expect(await store.listMessages(agent.id, conversation.id)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('cancels an agent query waiting for its model with closed', async () => {
    llm.configure({ firstTokenDelayMs: 30_000 });
    const ragdesk = open(temp.dir, llm.baseURL);
    const datastore = await ragdesk.datastores.create({ name: 'kb' });
    await datastore.upsert(docs(2));
    const agent = await ragdesk.agents.create({ name: 'a', description: 'd', datastoreIds: [datastore.id] });
    const query = ragdesk.agents.query(agent.id, { query: 'volcanoes?' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = performance.now();
    await Promise.all([expect(query).rejects.toMatchObject({ code: 'closed' }), ragdesk.close()]);
    // At once (tens of ms), not when the model would have answered (30 s).
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe('recovery of what a crash leaves behind without a job', () => {
  let temp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    temp = tempDir('ragdesk-leftovers-');
  });
  afterEach(() => temp.remove());

  it('marks a document whose upsert died before its chunks as error, and re-queues a file whose job was never created', async () => {
    const first = open(temp.dir);
    const datastore = await first.datastores.create({ name: 'kb' });
    await first.close();
    // What a crash leaves: a text record created `running` by upsert with no chunks yet, and a
    // file datasource stored with its upload but killed before `createJob`.
    const { retrieval: store, accounts } = sqliteStores({ path: join(temp.dir, 'ragdesk.db') });
    await accounts.close();
    const past = new Date(Date.now() - 60_000).toISOString();
    const text = { ...newDatasource({ datastoreId: datastore.id, type: 'text', name: 'half' }, past), status: 'running' as const };
    const file = newDatasource(
      { datastoreId: datastore.id, type: 'file', name: 'notes.txt', config: { mime_type: 'text/plain', file_name: 'notes.txt' } },
      past,
    );
    await store.createDatasource(text);
    await store.createDatasource(file);
    await store.putDatasourceFile(file.id, {
      bytes: new TextEncoder().encode('Notes about the LEFTOVER-42 harbour.'),
      mimeType: 'text/plain',
      fileName: 'notes.txt',
    });
    await store.close();

    const ragdesk = open(temp.dir);
    try {
      await ragdesk.datasources.start();
      expect(await ragdesk.datasources.get(text.id)).toMatchObject({ status: 'error', error: INTERRUPTED_UPSERT });
      expect((await ragdesk.datasources.waitUntilSettled(file.id, 10_000)).status).toBe('synched');
      const [hit] = await (await ragdesk.datastores.get(datastore.id)).query({ query: 'LEFTOVER-42', topK: 1, mode: 'lexical' });
      expect(hit?.datasource_id).toBe(file.id);
      // The errored document can be written again.
      await (await ragdesk.datastores.get(datastore.id)).update({ id: text.id, text: 'Now with its text.' });
      expect((await ragdesk.datasources.get(text.id)).status).toBe('synched');
    } finally {
      await ragdesk.close();
    }
    expect((await inspect(temp.dir)).failures).toEqual([]);
  });
});
