import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localAnswerer } from '../../adapters/local/index.js';
import { SurrogateJoiner, toWellFormed } from '../../src/index.js';
import type { ChatModel, ChatStreamPart } from '../../src/ports/chat-model.js';
import { openAgentSetup } from '../agents/helpers.js';
import { tempDir } from '../helpers/setups.js';
import { ApiClient } from '../http/client.js';
import { openFixture, type Fixture } from '../http/fixture.js';
import { OpenApiValidator } from '../http/openapi-validator.js';
import { startServer, type RunningServer } from '../http/servers.js';
import { openAgentStream } from '../http/sse-client.js';

/** Text a model may really answer with: astral planes, combining marks, ZWJ sequences, flags, and now and then a lone surrogate. */
const modelText = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 6 }),
      fc.constantFrom('😀', '👩‍👩‍👧‍👦', '🏳️‍🌈', '🇫🇷', 'é', 'ñ̃', '𝔘𝔫𝔦', '𠜎', '\u0301', '\u200d', ' ', '\n', 'ok'),
      fc.string({ unit: 'binary', maxLength: 3 }),
    ),
    { minLength: 1, maxLength: 12 },
  )
  .map((parts) => parts.join(''))
  .filter((text) => text.trim() !== '');

/** The text cut at the given positions (UTF-16 indexes), so a cut may fall inside a surrogate pair. */
function cutAt(text: string, positions: readonly number[]): string[] {
  const cuts = [...new Set(positions.map((position) => position % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    pieces.push(text.slice(from, cut));
    from = cut;
  }
  return pieces;
}

const everyPosition = (text: string) => [...text];
const everyCodeUnit = (text: string) => Array.from({ length: text.length }, (_, i) => text[i]!);

describe('SurrogateJoiner', () => {
  it('joins deltas cut at any position into exactly the well-formed whole text', () => {
    fc.assert(
      fc.property(modelText, fc.array(fc.nat(), { maxLength: 10 }), (text, positions) => {
        for (const pieces of [cutAt(text, positions), everyCodeUnit(text), everyPosition(text)]) {
          const joiner = new SurrogateJoiner();
          const sent = pieces.map((piece) => joiner.push(piece));
          sent.push(joiner.end());
          // Every sent delta is encodable on its own (no lone surrogate reaches encodeURIComponent).
          for (const delta of sent) expect(() => encodeURIComponent(delta)).not.toThrow();
          expect(sent.join('')).toBe(toWellFormed(text));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('turns a stream that ends on a lone high surrogate into U+FFFD', () => {
    const joiner = new SurrogateJoiner();
    expect([joiner.push('a\uD83D'), joiner.end()]).toEqual(['a', '\uFFFD']);
  });
});

describe('streamed answers cut anywhere equal the non-streaming answer (local OpenAI-compatible server)', () => {
  let fixture: Fixture;
  let server: RunningServer;
  let api: ApiClient;
  let agentId: string;

  beforeAll(async () => {
    fixture = await openFixture();
    server = await startServer('node:http', fixture.handler);
    api = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), fixture.alice);
    agentId = (await api.post<{ id: string }>('/api/agents', { name: 'Splitter', description: 'd' })).body.id;
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  it('one emoji split into its two halves streams without [ERROR]', async () => {
    fixture.openai.enqueue({ endpoint: 'chat', kind: 'reply', text: 'Hi 😀!', pieces: ['Hi ', '\uD83D', '\uDE00', '!'] });
    const streamed = await openAgentStream(server.origin, agentId, { query: 'smile' }, fixture.alice).outcome;
    expect(streamed.errorCode).toBeUndefined();
    expect(streamed.done).toBe(true);
    expect(streamed.deltas.join('')).toBe('Hi 😀!');
    expect(streamed.response).toMatchObject({ answer: 'Hi 😀!' });
  });

  it('random texts cut at random positions and at every code unit reassemble byte-identical', async () => {
    await fc.assert(
      fc.asyncProperty(modelText, fc.array(fc.nat(), { maxLength: 8 }), async (text, positions) => {
        fixture.openai.enqueue({ endpoint: 'chat', kind: 'reply', text });
        const plain = await api.post<{ answer: string }>(`/api/agents/${agentId}/query`, { query: 'say it' });
        expect(plain.status).toBe(200);
        for (const pieces of [cutAt(text, positions), everyCodeUnit(text)]) {
          fixture.openai.enqueue({ endpoint: 'chat', kind: 'reply', text, pieces });
          const streamed = await openAgentStream(server.origin, agentId, { query: 'say it' }, fixture.alice).outcome;
          expect(streamed.errorCode).toBeUndefined();
          expect(streamed.done).toBe(true);
          expect(Buffer.from(streamed.deltas.join(''), 'utf8')).toEqual(Buffer.from(plain.body.answer, 'utf8'));
          expect((streamed.response as { answer: string }).answer).toBe(plain.body.answer);
        }
      }),
      { numRuns: 25 },
    );
  });
});

/** The offline answerer's own deltas, re-cut at the given positions (it cuts at words itself). */
function recut(inner: ChatModel, positions: () => readonly number[]): ChatModel {
  return {
    name: inner.name,
    specificationVersion: 'v1',
    generate: (request) => inner.generate(request),
    async *stream(request): AsyncIterable<ChatStreamPart> {
      let text = '';
      let finish: ChatStreamPart | undefined;
      for await (const part of inner.stream(request)) {
        if (part.type === 'delta') text += part.text;
        else finish = part;
      }
      for (const piece of cutAt(text, positions())) yield { type: 'delta', text: piece };
      if (finish) yield finish;
    },
  };
}

describe('the offline answerer, cut anywhere', () => {
  it('streams the same text as its non-streaming answer', async () => {
    const temp = tempDir();
    let cuts: readonly number[] = [];
    const { ragdesk } = openAgentSetup(temp.dir, { chat: recut(localAnswerer(), () => cuts) });
    try {
      const datastore = await ragdesk.datastores.create({ name: 'emoji' });
      const agent = await ragdesk.agents.create({ name: 'offline', description: 'd', datastoreIds: [datastore.id] });
      await fc.assert(
        fc.asyncProperty(modelText, fc.array(fc.nat(), { maxLength: 12 }), async (text, positions) => {
          const document = `Lighthouse keepers write 😀 ${text} in the logbook.`;
          await datastore.upsert([{ name: 'log.md', text: document }]);
          cuts = positions;
          const plain = await ragdesk.agents.query(agent.id, { query: 'What do lighthouse keepers write in the logbook?' });
          const deltas: string[] = [];
          let final: { answer: string } | undefined;
          for await (const event of await ragdesk.agents.openStream(agent.id, {
            query: 'What do lighthouse keepers write in the logbook?',
          })) {
            if (event.type === 'answer') deltas.push(event.delta);
            else final = event.response;
          }
          for (const delta of deltas) expect(() => encodeURIComponent(delta)).not.toThrow();
          expect(deltas.join('')).toBe(plain.answer);
          expect(final?.answer).toBe(plain.answer);
        }),
        { numRuns: 15 },
      );
    } finally {
      await ragdesk.close();
      temp.remove();
    }
  });
});
