/**
 * The known-answer set (benchmarks/data/answers-known.json) asked of a real `ragdesk` HTTP server
 * with the offline defaults: the shared corpus's documents are uploaded through the API, each
 * question is asked through the API, and every answer is scored on what a person reading it
 * would check — does it say the fact, does the passage it cites say it, does every `[n]` lead to
 * a source entry that holds the sentence it follows.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, join } from 'node:path';
import { createHttpHandler } from '../../adapters/http/index.js';
import { openRagdesk } from '../../adapters/node.js';
import { datasetPath, missingDataset } from '../../fixtures/datasets.js';
import { PACKAGE_ROOT } from './report.js';

const CORPUS_DOCS = datasetPath('corpus', 'docs');
const DATASET_PATH = join(PACKAGE_ROOT, 'benchmarks', 'data', 'answers-known.json');

export type Split = 'tuned' | 'held_out';

export interface KnownAnswer {
  id: string;
  split: Split;
  /** Corpus file that holds the answer; null for a question the documents do not answer. */
  file: string | null;
  question: string;
  /** A string the answer must contain; null: the answer must say it found nothing. */
  answer: string | null;
  /** The batch it was written in (absent for the first three): each batch's split was drawn on its own. */
  batch?: number;
}

interface Dataset {
  files: string[];
  questions: KnownAnswer[];
}

export function readDataset(): Dataset {
  return JSON.parse(readFileSync(DATASET_PATH, 'utf8')) as Dataset;
}

/** Why the corpus cannot be used, or null when every file the set needs is there. */
export function corpusMissing(files: readonly string[]): string | null {
  const absent = missingDataset(CORPUS_DOCS);
  if (absent) return absent;
  const missing = files.filter((file) => !existsSync(join(CORPUS_DOCS, file)));
  return missing.length ? `${missing.length} corpus files are missing, e.g. ${missing[0]}` : null;
}

interface WirePassage {
  chunk_id: string;
  page_number: number | null;
  text: string;
  score: number;
}

interface WireSource {
  datasource_name: string;
  text: string;
  passages?: WirePassage[];
}

interface WireAnswer {
  answer: string;
  sources: WireSource[];
}

export interface ScoredAnswer {
  id: string;
  split: Split;
  batch: number | null;
  question: string;
  expected: string | null;
  answer: string;
  /** The answer holds the expected string (or, for an unanswerable question, says it found nothing). */
  holdsAnswer: boolean;
  /** A cited source entry's passages hold the expected string. */
  citedHoldsAnswer: boolean;
  citations: number;
  resolvedCitations: number;
}

export interface SplitScore {
  questions: number;
  holdsAnswer: number;
  citedHoldsAnswer: number;
  citations: number;
  citationsResolving: number;
  /** Questions the documents do not answer that got "nothing found". */
  unanswerable: number;
  unanswerableNothingFound: number;
}

const normalise = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();

/**
 * The passages an entry stands for: its `passages` when the server lists them, else its one
 * `text`; without the document's own footnote marks ("[12]"), which an answer cannot quote
 * without their reading as its citations.
 */
function entryTexts(entry: WireSource | undefined): string[] {
  if (!entry) return [];
  const texts = entry.passages?.length ? entry.passages.map((passage) => passage.text) : [entry.text];
  return texts.map((text) => text.replace(/\[\d{1,4}\]/g, ''));
}

/** `[n]` markers with the text each follows (back to the previous marker). */
function citationsOf(answer: string): { number: number; quoted: string }[] {
  const out: { number: number; quoted: string }[] = [];
  let last = 0;
  for (const match of answer.matchAll(/\[(\d+)\]/g)) {
    const at = match.index ?? 0;
    out.push({ number: Number(match[1]), quoted: answer.slice(last, at) });
    last = at + match[0].length;
  }
  return out;
}

/**
 * A citation resolves when its number names an entry and that entry's passages hold the sentence
 * it follows (a sentence cut to length ends in "…": the kept part must be there).
 */
function resolves(citation: { number: number; quoted: string }, sources: readonly WireSource[]): boolean {
  const entry = sources[citation.number - 1];
  if (!entry) return false;
  const quoted = normalise(citation.quoted.replace(/…\s*$/, ''));
  return quoted === '' || entryTexts(entry).some((text) => normalise(text).includes(quoted));
}

export function scoreAnswer(question: KnownAnswer, response: WireAnswer, nothingFound: (answer: string) => boolean): ScoredAnswer {
  const citations = citationsOf(response.answer);
  const resolvedCitations = citations.filter((citation) => resolves(citation, response.sources)).length;
  const expected = question.answer;
  let holdsAnswer: boolean;
  let citedHoldsAnswer: boolean;
  if (expected === null) {
    holdsAnswer = nothingFound(response.answer) && citations.length === 0;
    citedHoldsAnswer = holdsAnswer;
  } else {
    const want = normalise(expected);
    holdsAnswer = normalise(response.answer).includes(want);
    citedHoldsAnswer = citations.some((citation) =>
      entryTexts(response.sources[citation.number - 1]).some((text) => normalise(text).includes(want)),
    );
  }
  return {
    id: question.id,
    split: question.split,
    batch: question.batch ?? null,
    question: question.question,
    expected,
    answer: response.answer,
    holdsAnswer,
    citedHoldsAnswer,
    citations: citations.length,
    resolvedCitations,
  };
}

export function summarise(scored: readonly ScoredAnswer[]): SplitScore {
  const answerable = scored.filter((answer) => answer.expected !== null);
  const unanswerable = scored.filter((answer) => answer.expected === null);
  return {
    questions: answerable.length,
    holdsAnswer: answerable.filter((answer) => answer.holdsAnswer).length,
    citedHoldsAnswer: answerable.filter((answer) => answer.citedHoldsAnswer).length,
    citations: scored.reduce((sum, answer) => sum + answer.citations, 0),
    citationsResolving: scored.reduce((sum, answer) => sum + answer.resolvedCitations, 0),
    unanswerable: unanswerable.length,
    unanswerableNothingFound: unanswerable.filter((answer) => answer.holdsAnswer).length,
  };
}

export interface KnownAnswerServer {
  /** Asks one question of an agent (created once per settings) and returns the JSON answer. */
  ask(question: string, settings?: Record<string, unknown>): Promise<WireAnswer>;
  close(): Promise<void>;
}

const KEY = 'rdk_known_answers_bench_key_0000000000';

/**
 * Opens the offline defaults in `dataDir` behind a real HTTP server on 127.0.0.1 and uploads
 * `files` (paths inside the corpus) through `POST /api/datasources`, waiting until each is synched.
 */
export async function startKnownAnswerServer(dataDir: string, files: readonly string[]): Promise<KnownAnswerServer> {
  const ragdesk = openRagdesk({ dataDir, env: {} });
  const handler = createHttpHandler(ragdesk, { apiKeys: [{ key: KEY, ownerId: 'known-answers' }] });
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const init: RequestInit = { method, headers: { authorization: `Bearer ${KEY}` } };
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { ...init.headers, 'content-type': 'application/json' };
    }
    const response = await fetch(`${origin}/api${path}`, init);
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  };
  try {
    const datastore = await call<{ id: string }>('POST', '/datastores', { name: 'known answers' });
    for (const file of files) {
      const form = new FormData();
      form.set('type', 'file');
      form.set('datastoreId', datastore.id);
      form.set('file', new Blob([readFileSync(join(CORPUS_DOCS, file))]), basename(file));
      const created = await call<{ id: string }>('POST', '/datasources', form);
      for (;;) {
        const current = await call<{ status: string }>('GET', `/datasources/${created.id}`);
        if (current.status === 'synched') break;
        if (current.status === 'error' || current.status === 'usage_limit_reached') throw new Error(`${file}: ${current.status}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    const agents = new Map<string, string>();
    return {
      async ask(question, settings = {}) {
        const key = JSON.stringify(settings);
        let agentId = agents.get(key);
        if (!agentId) {
          const agent = await call<{ id: string }>('POST', '/agents', {
            name: `known answers ${agents.size + 1}`,
            description: 'known-answer benchmark',
            tools: [{ type: 'datastore', datastoreId: datastore.id }],
            ...settings,
          });
          agentId = agent.id;
          agents.set(key, agentId);
        }
        return call<WireAnswer>('POST', `/agents/${agentId}/query`, { query: question });
      },
      async close() {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await ragdesk.close();
      },
    };
  } catch (error) {
    server.closeAllConnections();
    server.close();
    await ragdesk.close();
    throw error;
  }
}
