/**
 * bench:agent — what the agent flow adds on top of the model call. A local OpenAI-compatible server
 * answers with a fixed first-token delay; in the same run we time (1) the `openai` client streaming
 * from it directly, (2) the hybrid retrieval an agent query performs, and (3) `agents.openStream`
 * end to end, first `answer` delta and the final `endpoint_response`. The library's own added time
 * is (3) − (1) − (2). Goal: at most 5 ms.
 *
 *   npm run bench:agent -- [--queries 60] [--first-token-ms 40] [--documents 300]
 */
import OpenAI from 'openai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { hnswIndex } from '../adapters/hnsw/index.js';
import { localEmbeddings } from '../adapters/local/index.js';
import { openaiChat } from '../adapters/openai/index.js';
import { sqliteStores } from '../adapters/sqlite/index.js';
import { createRagdesk } from '../src/index.js';
import { startOpenAIServer } from '../fixtures/openai-server.js';
import { flags, latencySummary, printTable, writeResult } from './lib/report.js';

const args = flags(process.argv.slice(2));
const QUERIES = Number(args.get('queries') ?? 60);
const FIRST_TOKEN_MS = Number(args.get('first-token-ms') ?? 40);
const DOCUMENTS = Number(args.get('documents') ?? 300);
const WARMUP = 5;
const ANSWER = 'The warranty lasts two years and covers the heating element and the thermostat, not limescale.';

const TOPICS = ['warranty', 'shipping', 'returns', 'billing', 'accounts', 'privacy', 'kettles', 'toasters', 'repairs', 'gift cards'];
const QUESTIONS = TOPICS.map((topic) => `What does the ${topic} policy say about customers in Europe?`);

function documentText(i: number): string {
  const topic = TOPICS[i % TOPICS.length]!;
  return Array.from(
    { length: 12 },
    (_, s) =>
      `Section ${s} of the ${topic} guide, revision ${i}: customers in region ${i % 7} receive answer ${(i * 31 + s) % 97} ` +
      `about ${topic}, with exceptions listed for item ${s * 13 + i}.`,
  ).join(' ');
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ragdesk-bench-agent-'));
  const server = await startOpenAIServer({ reply: () => ANSWER, firstTokenDelayMs: FIRST_TOKEN_MS, interTokenDelayMs: 0 });
  const client = new OpenAI({ apiKey: 'bench', baseURL: server.baseURL, maxRetries: 0 });
  const ragdesk = createRagdesk({
    ...sqliteStores({ path: join(dir, 'ragdesk.db') }),
    index: hnswIndex({ dir: join(dir, 'indexes') }),
    embeddings: localEmbeddings(),
    chat: openaiChat({ client, maxRetries: 0 }),
  });
  try {
    console.log(`bench:agent — ${DOCUMENTS} documents, ${QUERIES} queries, first token after ${FIRST_TOKEN_MS} ms`);
    const datastore = await ragdesk.datastores.create({ name: 'bench' });
    await datastore.upsert(Array.from({ length: DOCUMENTS }, (_, i) => ({ name: `doc-${i}`, text: documentText(i) })));
    const agent = await ragdesk.agents.create({ name: 'bench', description: 'bench', datastoreIds: [datastore.id] });
    const question = (i: number) => QUESTIONS[i % QUESTIONS.length]!;

    // The direct call replays the exact messages the agent sent upstream, so both paths move the
    // same bytes and the difference is the library's own work.
    const agentMessages = new Map<string, OpenAI.Chat.Completions.ChatCompletionMessageParam[]>();
    for (const q of QUESTIONS) {
      for await (const _ of await ragdesk.agents.openStream(agent.id, { query: q })) void _;
      const sent = server.chatRequests().at(-1)!;
      agentMessages.set(
        q,
        sent.messages.map(
          (message) => ({ role: message.role, content: message.content }) as OpenAI.Chat.Completions.ChatCompletionMessageParam,
        ),
      );
    }
    const direct = { first: [] as number[], total: [] as number[] };
    const retrieval: number[] = [];
    const library = { first: [] as number[], total: [] as number[] };
    for (let i = 0; i < QUERIES + WARMUP; i++) {
      const keep = i >= WARMUP;
      // (1) the model call alone, with the prompt the agent sends.
      let start = performance.now();
      let first = 0;
      const stream = await client.chat.completions.create({
        model: 'gpt-4.1-mini',
        messages: agentMessages.get(question(i))!,
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const chunk of stream) if (!first && chunk.choices[0]?.delta?.content) first = performance.now() - start;
      if (keep) {
        direct.first.push(first);
        direct.total.push(performance.now() - start);
      }

      // (2) the retrieval an agent query performs (hybrid, the agent's default depth).
      start = performance.now();
      await datastore.query({ query: question(i), topK: 6 });
      if (keep) retrieval.push(performance.now() - start);

      // (3) the whole agent query, streamed.
      start = performance.now();
      first = 0;
      for await (const event of await ragdesk.agents.openStream(agent.id, { query: question(i) })) {
        if (!first && event.type === 'answer') first = performance.now() - start;
      }
      if (keep) {
        library.first.push(first);
        library.total.push(performance.now() - start);
      }
    }

    const d = { first: latencySummary(direct.first), total: latencySummary(direct.total) };
    const r = latencySummary(retrieval);
    const l = { first: latencySummary(library.first), total: latencySummary(library.total) };
    const added = { first: l.first.p50 - d.first.p50 - r.p50, total: l.total.p50 - d.total.p50 - r.p50 };
    const ms = (value: number) => Number(value.toFixed(2));
    printTable('Agent query vs the model call alone (ms)', [
      { path: 'openai client → server (direct)', first_delta_p50: ms(d.first.p50), end_p50: ms(d.total.p50), end_p99: ms(d.total.p99) },
      { path: 'retrieval (hybrid, topK 6)', first_delta_p50: ms(r.p50), end_p50: ms(r.p50), end_p99: ms(r.p99) },
      { path: 'agents.openStream (library)', first_delta_p50: ms(l.first.p50), end_p50: ms(l.total.p50), end_p99: ms(l.total.p99) },
      { path: 'added by the library (p50)', first_delta_p50: ms(added.first), end_p50: ms(added.total), end_p99: '' },
    ]);
    const goalMet = added.first <= 5 && added.total <= 5;
    console.log(`goal: library adds at most 5 ms beyond retrieval and the model call → ${goalMet ? 'met' : 'MISSED'}`);
    const file = writeResult('agent', {
      queries: QUERIES,
      documents: DOCUMENTS,
      firstTokenDelayMs: FIRST_TOKEN_MS,
      direct: d,
      retrieval: r,
      library: l,
      addedP50Ms: added,
      goalMs: 5,
      goalMet,
    });
    console.log(`wrote ${file}`);
  } finally {
    await ragdesk.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
