import { afterAll, beforeAll, expect, it } from 'vitest';
import { httpReranker } from '../../adapters/rerank/index.js';
import { startRerankServer, type RerankServer } from '../helpers/rerank-server.js';
import { openFixture, type Fixture } from './fixture.js';
import { startServer, type RunningServer } from './servers.js';

let reranks: RerankServer;
let fixture: Fixture;
let server: RunningServer;
let datastoreId: string;
beforeAll(async () => {
  reranks = await startRerankServer();
  fixture = await openFixture({
    reranker: httpReranker({ provider: 'jina', url: reranks.urlOf('jina'), model: 'jina-reranker-v2', apiKey: 'k' }),
  });
  server = await startServer('node:http', fixture.handler);
  const datastore = await fixture.ragdesk.datastores.create({ name: 'rerank' }, { ownerId: 'alice' });
  datastoreId = datastore.id;
  await datastore.upsert([
    { text: 'moon tides moon tides moon tides moon tides moon tides moon tides harbor boat' },
    { text: 'Moon tides.' },
  ]);
});
afterAll(async () => {
  await server.close();
  await fixture.close();
  await reranks.close();
});

const query = (body: unknown) =>
  fetch(`${server.origin}/api/datastores/${datastoreId}/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${fixture.alice}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

it('answers reranked fragments with rerank_score and the reranker time in Server-Timing', async () => {
  const plain = await query({ query: 'moon tides', mode: 'lexical', topK: 2 });
  expect(plain.headers.get('server-timing')).toBeNull();
  const response = await query({ query: 'moon tides', mode: 'lexical', topK: 1, rerank: { topN: 2 } });
  expect(response.status).toBe(200);
  const fragments = (await response.json()) as { text: string; rerank_score?: number }[];
  expect(fragments.map((fragment) => fragment.text)).toEqual(['Moon tides.']);
  expect(typeof fragments[0]!.rerank_score).toBe('number');
  expect(response.headers.get('server-timing')).toMatch(/^rerank;dur=\d+\.\d{2};desc="jina:jina-reranker-v2 over 2"$/);
  const bad = await query({ query: 'moon', rerank: { topN: 0 } });
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { error: { details: { issues: { path: string }[] } } }).error.details.issues[0]!.path).toBe('rerank.topN');
});
