/**
 * The HTTP reranker against a local server that speaks each provider's `/rerank` (Cohere, Jina,
 * Voyage, TEI): the conformance suite, each provider's field names, retries on 429 with
 * Retry-After and on 5xx, errors that are not retried, timeouts through the timer seam; then the
 * core using it for datastore and agent queries.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { localAnswerer } from '../../../adapters/local/extractive-answerer.js';
import { localEmbeddings } from '../../../adapters/local/index.js';
import { exactIndex, memoryStores } from '../../../adapters/memory/index.js';
import { createHttpReranker, type RerankerSeams, type RerankProvider } from '../../../adapters/rerank/http-reranker.js';
import { httpReranker } from '../../../adapters/rerank/index.js';
import { createRagdesk, RagdeskError, type QueryDetails, type Ragdesk, type Reranker } from '../../../src/index.js';
import { describeRerankerConformance } from '../../../src/testing/index.js';
import { startRerankServer, type RerankServer } from '../../helpers/rerank-server.js';

const PROVIDERS: RerankProvider[] = ['cohere', 'jina', 'voyage', 'tei'];
let server: RerankServer;
beforeAll(async () => {
  server = await startRerankServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  server.script.length = 0;
  server.requests.length = 0;
});

const rerankerFor = (
  provider: RerankProvider,
  options: { maxRetries?: number; maxRetryAfterMs?: number } = {},
  seams: RerankerSeams = {},
) =>
  createHttpReranker(
    {
      provider,
      url: server.urlOf(provider),
      apiKey: 'secret-key',
      ...(provider === 'tei' ? {} : { model: `${provider}-model` }),
      ...options,
    },
    seams,
  );

for (const provider of PROVIDERS) describeRerankerConformance(`http (${provider})`, { create: () => rerankerFor(provider) });

async function failure(promise: Promise<unknown>): Promise<RagdeskError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!RagdeskError.isInstance(error)) throw new Error(`expected a RagdeskError, got ${String(error)}`);
  return error;
}

const PASSAGES = ['bread and yeast', 'the moon pulls the tides', 'rust on iron'];

describe('httpReranker', () => {
  it("sends each provider's request shape with the key, and reads its answer", async () => {
    for (const provider of PROVIDERS) {
      const ranked = await rerankerFor(provider).rerank('moon tides', PASSAGES, 2);
      expect(ranked.map((passage) => passage.index)[0]).toBe(1);
      expect(ranked).toHaveLength(2);
    }
    const [cohere, jina, voyage, tei] = server.requests;
    expect(cohere!.body).toEqual({ model: 'cohere-model', query: 'moon tides', documents: PASSAGES, top_n: 2 });
    expect(jina!.body).toMatchObject({ model: 'jina-model', documents: PASSAGES, top_n: 2 });
    expect(voyage!.body).toMatchObject({ model: 'voyage-model', documents: PASSAGES, top_k: 2 });
    expect(tei!.body).toMatchObject({ query: 'moon tides', texts: PASSAGES });
    for (const request of server.requests) expect(request.authorization).toBe('Bearer secret-key');
  });

  it('waits what Retry-After asks on 429 and retries; refuses a longer wait at once with rate_limited', async () => {
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
    };
    server.script.push({ status: 429, headers: { 'retry-after': '2' }, body: { message: 'slow down' } });
    const ranked = await rerankerFor('cohere', {}, { sleep }).rerank('moon tides', PASSAGES, 1);
    expect(ranked[0]!.index).toBe(1);
    expect(waits).toEqual([2000]);
    expect(server.requests).toHaveLength(2);

    server.requests.length = 0;
    server.script.push({ status: 429, headers: { 'retry-after': '120' }, body: { detail: 'quota' } });
    const refused = await failure(rerankerFor('jina', {}, { sleep }).rerank('moon', PASSAGES, 1));
    expect(refused.code).toBe('rate_limited');
    expect(refused.retryable).toBe(true);
    expect(refused.details).toMatchObject({ status: 429, retryAfterMs: 120_000 });
    expect(server.requests).toHaveLength(1);

    server.script.push(...[1, 2, 3].map(() => ({ status: 429, headers: { 'retry-after': '1' } })));
    expect((await failure(rerankerFor('voyage', { maxRetries: 2 }, { sleep }).rerank('moon', PASSAGES, 1))).code).toBe('rate_limited');
  });

  it('retries 5xx with backoff, never a 4xx, and names the provider message', async () => {
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
    };
    server.script.push({ status: 503, body: { error: 'loading' } }, { status: 500, body: { error: 'again' } });
    expect((await rerankerFor('tei', {}, { sleep }).rerank('moon tides', PASSAGES, 1))[0]!.index).toBe(1);
    expect(waits).toEqual([500, 1000]);

    server.requests.length = 0;
    server.script.push({ status: 401, body: { message: 'invalid api token' } });
    const refused = await failure(rerankerFor('cohere', {}, { sleep }).rerank('moon', PASSAGES, 1));
    expect(refused.code).toBe('upstream_failed');
    expect(refused.retryable).toBe(false);
    expect(refused.message).toContain('invalid api token');
    expect(refused.details).toMatchObject({ status: 401 });
    expect(server.requests).toHaveLength(1);
  });

  it('fails a call that takes longer than timeoutMs with upstream_timeout (the timer is a seam)', async () => {
    let fire: (() => void) | undefined;
    const schedule = (_ms: number, callback: () => void) => {
      fire = callback;
      return () => undefined;
    };
    server.script.push({ hang: true });
    const pending = failure(rerankerFor('voyage', { maxRetries: 0 }, { schedule }).rerank('moon', PASSAGES, 1));
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    fire!();
    const error = await pending;
    expect(error.code).toBe('upstream_timeout');
  });

  it('refuses an answer that is not the provider shape, and bad options', async () => {
    server.script.push({ raw: '{"results": [{"index": 7, "relevance_score": 1}]}' });
    expect((await failure(rerankerFor('cohere').rerank('moon', PASSAGES, 1))).code).toBe('upstream_failed');
    server.script.push({ raw: 'not json' });
    expect((await failure(rerankerFor('jina').rerank('moon', PASSAGES, 1))).code).toBe('upstream_failed');
    expect(() => httpReranker({ provider: 'cohere' })).toThrow(/model/);
    expect(() => httpReranker({ provider: 'tei' })).toThrow(/url/);
    expect(() => httpReranker({ provider: 'nope' as RerankProvider, url: 'http://x' })).toThrow(/provider/);
    expect(() => httpReranker({ provider: 'tei', url: 'http://127.0.0.1:1/rerank', timeoutMs: 0 })).toThrow(/timeoutMs/);
  });
});

describe('createRagdesk({ reranker })', () => {
  it('refuses a reranker of another port version, without rerank, or without a model', async () => {
    const base = { ...memoryStores(), index: exactIndex(), embeddings: localEmbeddings() };
    const good = rerankerFor('cohere');
    const refused = (reranker: unknown) => {
      try {
        createRagdesk({ ...base, reranker: reranker as Reranker });
        return undefined;
      } catch (error) {
        return error as RagdeskError;
      }
    };
    expect(refused({ ...good, specificationVersion: 'v0' })).toMatchObject({ code: 'invalid_adapter', details: { port: 'reranker' } });
    expect(refused({ specificationVersion: 'v1', model: 'x' })).toMatchObject({
      code: 'invalid_adapter',
      details: { missing: ['rerank'] },
    });
    expect(refused({ ...good, model: '' })).toMatchObject({ code: 'invalid_adapter' });
    await Promise.all([base.retrieval.close(), base.accounts.close()]);
  });
});

describe('rerank in datastore and agent queries', () => {
  const opened: Ragdesk[] = [];
  afterEach(async () => {
    for (const ragdesk of opened.splice(0)) await ragdesk.close();
  });
  const open = (reranker?: Reranker) => {
    const ragdesk = createRagdesk({
      ...memoryStores(),
      index: exactIndex(),
      embeddings: localEmbeddings(),
      chat: localAnswerer(),
      ...(reranker ? { reranker } : {}),
    });
    opened.push(ragdesk);
    return ragdesk;
  };
  const DOCS = [
    // bm25 prefers the repetitions; the fake reranker counts distinct shared words, so prefers the short one.
    { id: 'tide-1', text: 'moon tides moon tides moon tides moon tides moon tides moon tides harbor boat' },
    { id: 'moon-tide', text: 'Moon tides.' },
    { id: 'bread', text: 'Bread rises with yeast.' },
  ];

  it('orders the first stage by the reranker, reports its time, and keeps topK', async () => {
    const ragdesk = open(rerankerFor('cohere'));
    const datastore = await ragdesk.datastores.create({ name: 'kb' });
    await datastore.upsert(DOCS);
    const plain = await datastore.query({ query: 'moon tides', mode: 'lexical', topK: 2 });
    expect(plain[0]!.datasource_id).toBe('tide-1');
    expect(plain[0]!.rerank_score).toBeUndefined();
    const details: QueryDetails = {};
    const reranked = await datastore.query({ query: 'moon tides', mode: 'lexical', topK: 1, rerank: { topN: 3 } }, details);
    expect(reranked.map((fragment) => fragment.datasource_id)).toEqual(['moon-tide']);
    expect(typeof reranked[0]!.rerank_score).toBe('number');
    expect(details.rerank).toMatchObject({ model: 'cohere:cohere-model', candidates: 2 });
    expect(details.rerank!.ms).toBeGreaterThanOrEqual(0);
    expect(server.requests.at(-1)!.body).toMatchObject({ top_n: 1 });
    expect((server.requests.at(-1)!.body.documents as string[]).length).toBe(2);
  });

  it('reranks agent queries by query field or agent setting, and refuses rerank without a reranker', async () => {
    const ragdesk = open(rerankerFor('tei'));
    const datastore = await ragdesk.datastores.create({ name: 'kb' });
    await datastore.upsert(DOCS);
    const agent = await ragdesk.agents.create({ name: 'helper', description: 'answers', datastoreIds: [datastore.id] });
    const asked = await ragdesk.agents.query(agent.id, { query: 'moon tides', rerank: { topN: 3 } });
    expect(asked.rerank).toMatchObject({ model: 'tei:tei', candidates: 3 });
    const configured = await ragdesk.agents.update(agent.id, { description: 'answers', rerankTopN: 2 });
    expect(configured.settings.rerankTopN).toBe(2);
    expect((await ragdesk.agents.query(agent.id, { query: 'moon tides' })).rerank).toMatchObject({ candidates: 2 });

    const without = open();
    const store = await without.datastores.create({ name: 'kb' });
    const error = await failure(store.query({ query: 'moon', rerank: { topN: 5 } }));
    expect(error.code).toBe('invalid_request');
    expect((error.details as { issues: { path: string }[] }).issues[0]!.path).toBe('rerank');
    expect((await failure(store.query({ query: 'moon', rerank: { topN: 0 } }))).code).toBe('invalid_request');
  });
});
