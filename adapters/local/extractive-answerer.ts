import { createRequire } from 'node:module';
import { RagdeskError } from '../../src/errors.js';
import type { ChatModel, ChatRequest, ChatResult, ChatStreamPart, ChatUsage } from '../../src/ports/chat-model.js';
import { rankSentences, type RankedSentence } from './sentence-ranking.js';

export interface LocalAnswererOptions {
  /** Most sentences quoted in one answer (default 3). */
  maxSentences?: number;
  /**
   * Share of the question's (weighted) terms a sentence (with its heading) must contain to be quoted
   * (default 0.15), unless it holds half the question's focus in a passage covering half of it.
   * Below it for every sentence, the answer says nothing relevant was found.
   */
  minCoverage?: number;
  /** Counts tokens for `usage` (default: cl100k via gpt-tokenizer, as the rest of ragdesk). */
  countTokens?: (text: string) => number;
  /** Pause between streamed words in ms (default 0: as fast as the consumer reads). */
  wordDelayMs?: number;
}

/** Said when no retrieved sentence answers the question. */
export const NOTHING_FOUND = 'I could not find anything relevant to your question in the documents I have access to.';

/**
 * `ragdesk/local` answerer: no model, no network. It quotes the retrieved sentences that best cover
 * the question, each followed by its passage number (`[2]`), and says plainly when none does. It
 * reads the passages from `request.grounding`, so it never parses prompts; without grounding it can
 * only say it found nothing. Deterministic, so tests and demos give the same answer every time.
 */
export function localAnswerer(options: LocalAnswererOptions = {}): ChatModel {
  const maxSentences = options.maxSentences ?? 3;
  const minCoverage = options.minCoverage ?? 0.15;
  if (!Number.isInteger(maxSentences) || maxSentences < 1) {
    throw new RagdeskError('invalid_request', `maxSentences must be a positive integer, got ${maxSentences}`);
  }
  if (!(minCoverage > 0 && minCoverage <= 1)) {
    throw new RagdeskError('invalid_request', `minCoverage must be in (0, 1], got ${minCoverage}`);
  }
  const countTokens = options.countTokens ?? cl100kCount;
  const wordDelayMs = options.wordDelayMs ?? 0;

  const answer = (request: ChatRequest): { text: string; usage: ChatUsage } => {
    const text = compose(request, maxSentences, minCoverage);
    const promptTokens = request.messages.reduce((sum, message) => sum + countTokens(message.content) + 4, 0);
    return { text, usage: { promptTokens, completionTokens: countTokens(text) } };
  };

  return {
    name: 'local:extractive',
    specificationVersion: 'v1',
    // Not a language model: it runs no hosted name, so agents here use its own.
    models: () => ({ names: ['local_extractive'], default: 'local_extractive' }),
    async generate(request): Promise<ChatResult> {
      throwIfAborted(request.signal);
      const { text, usage } = answer(request);
      return { text, usage, finishReason: 'stop', warnings: ignoredSettings(request) };
    },
    async *stream(request): AsyncIterable<ChatStreamPart> {
      throwIfAborted(request.signal);
      const { text, usage } = answer(request);
      for (const word of text.match(/\S+\s*/g) ?? []) {
        if (wordDelayMs > 0) await delay(wordDelayMs, request.signal);
        throwIfAborted(request.signal);
        yield { type: 'delta', text: word };
      }
      yield { type: 'finish', usage, finishReason: 'stop', warnings: ignoredSettings(request) };
    },
  };
}

function compose(request: ChatRequest, maxSentences: number, minCoverage: number): string {
  if (!request.grounding) return NOTHING_FOUND;
  const ranked = rankSentences(request.grounding, minCoverage);
  const best = ranked[0];
  if (!best) return NOTHING_FOUND;
  // Further sentences only when they answer nearly as well: three weak quotes read as noise.
  const chosen: RankedSentence[] = [];
  for (const sentence of ranked) {
    if (chosen.length >= maxSentences || sentence.score < best.score * KEEP_RATIO) break;
    // A line inside a block already quoted (or the block around a quoted line) says nothing new.
    if (chosen.some((quoted) => quoted.text.includes(sentence.text) || sentence.text.includes(quoted.text))) continue;
    chosen.push(sentence);
  }
  return chosen.map((sentence) => `${sentence.text} [${sentence.passage}]`).join(' ');
}

/** Share of the best score a further sentence needs to be quoted too. */
const KEEP_RATIO = 0.7;

/** Sampling settings mean nothing to an extractive answerer; it says so rather than pretending. */
function ignoredSettings(request: ChatRequest): string[] {
  const ignored = (['topP', 'presencePenalty', 'frequencyPenalty'] as const).filter((key) => request[key] !== undefined);
  return ignored.length ? [`the local extractive answerer ignores ${ignored.join(', ')}`] : [];
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new RagdeskError('aborted', 'The answer was aborted by the caller');
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    // The listener goes when the timer fires: one per streamed word would otherwise pile up on the
    // request's signal for the whole answer.
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

let cl100k: ((text: string) => number) | undefined;

function cl100kCount(text: string): number {
  if (!cl100k) {
    const require = createRequire(import.meta.url);
    const encoding = require('gpt-tokenizer/encoding/cl100k_base') as {
      countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
    };
    const plain = { disallowedSpecial: new Set<string>() };
    cl100k = (value) => (value ? encoding.countTokens(value, plain) : 0);
  }
  return cl100k(text);
}
