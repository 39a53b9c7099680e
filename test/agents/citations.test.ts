import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../adapters/http/index.js';
import { fileLoading } from '../../adapters/loaders/index.js';
import { openaiChat } from '../../adapters/openai/index.js';
import { CitationStreamFilter, checkCitations } from '../../src/agents/citations.js';
import type { Ragdesk } from '../../src/index.js';
import type { SourceEntry } from '../../src/ports/agent-key-usage-records.js';
import { makePdf } from '../../fixtures/pdf-writer.js';
import { startOpenAIServer, type OpenAIServer } from '../../fixtures/openai-server.js';
import { tempDir } from '../helpers/setups.js';
import { openAgentStream } from '../http/sse-client.js';
import { openAgentSetup } from './helpers.js';

const KEY = 'rdk_citations_test_key_00000000000000';
const QUESTION = 'How many years does the warranty last for the kettle, the toaster and the blender?';

/** Two pages of one PDF and one text file, each answering a third of the question. */
async function ingest(ragdesk: Ragdesk): Promise<string> {
  const datastore = await ragdesk.datastores.create({ name: 'warranties' }, { ownerId: 'owner' });
  const pdf = makePdf([
    ['Kettles', 'The kettle warranty lasts two years from the day of purchase.'],
    ['Toasters', 'The toaster warranty lasts three years from the day of purchase.'],
  ]);
  const files = [
    { bytes: pdf, fileName: 'appliances.pdf' },
    {
      bytes: new TextEncoder().encode('Blenders\n\nThe blender warranty lasts five years from the day of purchase.'),
      fileName: 'blenders.txt',
    },
  ];
  for (const file of files) {
    const source = await ragdesk.datasources.create({ type: 'file', datastoreId: datastore.id, file });
    expect((await ragdesk.datasources.waitUntilSettled(source.id, 60_000)).status).toBe('synched');
  }
  const agent = await ragdesk.agents.create(
    { name: 'warranties', description: 'warranties', datastoreIds: [datastore.id] },
    { ownerId: 'owner' },
  );
  return agent.id;
}

async function listen(ragdesk: Ragdesk): Promise<{ origin: string; server: Server }> {
  const server = createServer(createHttpHandler(ragdesk, { apiKeys: [{ key: KEY, ownerId: 'owner' }] }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function askJson(origin: string, agentId: string): Promise<{ answer: string; sources: SourceEntry[]; warnings: string[] }> {
  const response = await fetch(`${origin}/api/agents/${agentId}/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: QUESTION }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { answer: string; sources: SourceEntry[]; warnings: string[] };
}

async function askStream(origin: string, agentId: string) {
  const outcome = await openAgentStream(origin, agentId, { query: QUESTION }, KEY).outcome;
  expect(outcome.done).toBe(true);
  const response = outcome.response as { answer: string; sources: SourceEntry[]; warnings: string[] };
  return { deltas: outcome.deltas, response };
}

/** Every marker with the sentence it follows (back to the previous marker). */
function citations(answer: string): { n: number; quoted: string }[] {
  const out: { n: number; quoted: string }[] = [];
  let last = 0;
  for (const match of answer.matchAll(/\[(\d+)\]/g)) {
    out.push({ n: Number(match[1]), quoted: answer.slice(last, match.index).trim() });
    last = (match.index ?? 0) + match[0].length;
  }
  return out;
}

const flat = (text: string) => text.replace(/\s+/g, ' ');

/** Each `[n]` names an entry, and that entry lists a passage holding the sentence before it. */
function expectEveryCitationResolves(answer: string, sources: readonly SourceEntry[]): void {
  const found = citations(answer);
  expect(found.length).toBeGreaterThan(0);
  for (const { n, quoted } of found) {
    const entry = sources[n - 1];
    expect(entry, `[${n}] of ${sources.length} sources`).toBeDefined();
    expect(
      entry!.passages.some((passage) => flat(passage.text).includes(flat(quoted))),
      `[${n}] "${quoted}" in ${entry!.datasource_name}`,
    ).toBe(true);
  }
}

describe('citations name the source entry that holds their passage', () => {
  describe('offline answerer', () => {
    const temp = tempDir();
    let ragdesk: Ragdesk;
    let agentId: string;
    let origin: string;
    let server: Server;
    beforeAll(async () => {
      ({ ragdesk } = openAgentSetup(temp.dir, { extra: { files: fileLoading({ parser: 'main' }) } }));
      agentId = await ingest(ragdesk);
      ({ origin, server } = await listen(ragdesk));
    }, 120_000);
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await ragdesk.close();
      temp.remove();
    });

    it('lists one entry per file, the PDF entry with both pages as passages, best first', async () => {
      const { sources } = await askJson(origin, agentId);
      expect(sources.map((entry) => entry.datasource_name).sort()).toEqual(['appliances.pdf', 'blenders.txt']);
      const pdf = sources.find((entry) => entry.datasource_name === 'appliances.pdf')!;
      expect(pdf.passages.map((passage) => passage.page_number).sort()).toEqual([1, 2]);
      expect(pdf.passages[0]!.chunk_id).toBe(pdf.chunk_id);
      expect(pdf.passages[0]!.text).toBe(pdf.text);
      const scores = pdf.passages.map((passage) => passage.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
    });

    it('JSON: the answer quotes all three passages and every [n] resolves', async () => {
      const { answer, sources, warnings } = await askJson(origin, agentId);
      expect(answer).toContain('two years');
      expect(answer).toContain('three years');
      expect(answer).toContain('five years');
      expectEveryCitationResolves(answer, sources);
      expect(new Set(citations(answer).map((c) => c.n)).size).toBe(2);
      expect(warnings.join(' ')).not.toMatch(/cited/);
    });

    it('SSE: the deltas and the endpoint_response carry the same resolving citations', async () => {
      const { deltas, response } = await askStream(origin, agentId);
      expect(deltas.join('')).toBe(response.answer);
      expect(response.answer).toContain('three years');
      expectEveryCitationResolves(response.answer, response.sources);
    });
  });

  describe('OpenAI-compatible server citing numbers outside the list', () => {
    const temp = tempDir();
    let upstream: OpenAIServer;
    let ragdesk: Ragdesk;
    let agentId: string;
    let origin: string;
    let server: Server;
    // Two sources: [3] and [7] name nothing, [1, 4] keeps only 1.
    const REPLY =
      'The kettle warranty lasts two years [1]. The toaster warranty lasts three years [1, 4]. Blenders: five years [2]. Ovens: ten years [3][7].';
    const CHECKED =
      'The kettle warranty lasts two years [1]. The toaster warranty lasts three years [1]. Blenders: five years [2]. Ovens: ten years.';
    beforeAll(async () => {
      upstream = await startOpenAIServer({ reply: () => REPLY });
      ({ ragdesk } = openAgentSetup(temp.dir, {
        chat: openaiChat({ apiKey: 'test-key', baseURL: upstream.baseURL, maxRetries: 0 }),
        extra: { files: fileLoading({ parser: 'main' }) },
      }));
      agentId = await ingest(ragdesk);
      ({ origin, server } = await listen(ragdesk));
    }, 120_000);
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await ragdesk.close();
      await upstream.close();
      temp.remove();
    });

    it('JSON: out-of-range markers are removed and named in a warning', async () => {
      const { answer, sources, warnings } = await askJson(origin, agentId);
      expect(sources).toHaveLength(2);
      expect(answer).toBe(CHECKED);
      expect(warnings).toContain('the answer cited [4], [3], [7], but it has 2 sources; those citations were removed');
    });

    it('SSE: a marker split across deltas is checked whole; deltas, answer and stored message agree', async () => {
      // Cut inside markers and between the space and the bracket.
      const pieces = [
        'The kettle warranty lasts two years [',
        '1]. The toaster warranty lasts three years ',
        '[1, ',
        '4]. Blenders: five years [2',
        ']. Ovens: ten years [3',
        '][',
        '7].',
      ];
      expect(pieces.join('')).toBe(REPLY);
      upstream.enqueue({ kind: 'reply', pieces });
      const { deltas, response } = await askStream(origin, agentId);
      expect(deltas.join('')).toBe(CHECKED);
      expect(deltas.some((delta) => /\[[347]/.test(delta))).toBe(false);
      expect(response.answer).toBe(CHECKED);
      expect(response.warnings.some((warning) => warning.includes('[4], [3], [7]'))).toBe(true);
      const stored = await ragdesk.agents.query(agentId, { query: 'again' });
      expect(stored.answer).toBe(CHECKED);
    });
  });
});

describe('checkCitations and its streaming form', () => {
  it('keeps in-range markers and Markdown links, removes the rest with the space before them', () => {
    expect(checkCitations('A [1]. B [2, 5]. C [9]. See [3](https://example.com).', 2)).toEqual({
      text: 'A [1]. B [2]. C. See [3](https://example.com).',
      removed: [5, 9],
    });
    expect(checkCitations('Nothing cited [1].', 0)).toEqual({ text: 'Nothing cited.', removed: [1] });
  });

  it('gives, for any cut of the text into deltas, what checking the whole text gives', () => {
    const piece = fc.constantFrom('word', ' ', '[', ']', '1', '3', '12', ',', ', ', '(', 'x)', '.', '\n');
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.integer({ min: 0, max: 4 }),
        (parts, cuts, count) => {
          const text = parts.join('');
          const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
          const filter = new CitationStreamFilter(count);
          let out = '';
          let at = 0;
          for (const point of [...points, text.length]) {
            out += filter.push(text.slice(at, point));
            at = point;
          }
          out += filter.end();
          const whole = checkCitations(text, count);
          expect(out).toBe(whole.text);
          expect([...filter.removed].sort()).toEqual([...whole.removed].sort());
        },
      ),
      { numRuns: 2000 },
    );
  });
});
