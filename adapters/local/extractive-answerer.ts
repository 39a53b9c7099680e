import { createRequire } from 'node:module';
import { stemmer } from 'stemmer';
import { RagdeskError } from '../../src/errors.js';
import type { ChatModel, ChatRequest, ChatResult, ChatStreamPart, ChatUsage, GroundingPassage } from '../../src/ports/chat-model.js';
import { extractQueryTerms, splitWords } from '../../src/text/query-terms.js';
import { splitSentences } from './sentences.js';

export interface LocalAnswererOptions {
  /** Most sentences quoted in one answer (default 3). */
  maxSentences?: number;
  /**
   * Share of the question's (weighted) terms a sentence must contain to be quoted (default 0.3).
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

interface ScoredSentence {
  text: string;
  passage: number;
  order: number;
  score: number;
  coverage: number;
}

/**
 * `ragdesk/local` answerer: no model, no network. It quotes the retrieved sentences that best cover
 * the question, each followed by its passage number (`[2]`), and says plainly when none does. It
 * reads the passages from `request.grounding`, so it never parses prompts; without grounding it can
 * only say it found nothing. Deterministic, so tests and demos give the same answer every time.
 */
export function localAnswerer(options: LocalAnswererOptions = {}): ChatModel {
  const maxSentences = options.maxSentences ?? 3;
  const minCoverage = options.minCoverage ?? 0.3;
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
  const grounding = request.grounding;
  if (!grounding || grounding.passages.length === 0) return NOTHING_FOUND;
  const weights = termWeights(grounding.query, grounding.passages);
  const total = [...weights.values()].reduce((sum, weight) => sum + weight, 0);
  if (total === 0) return NOTHING_FOUND;
  const scored: ScoredSentence[] = [];
  let order = 0;
  for (const passage of grounding.passages) {
    for (const sentence of splitSentences(passage.text)) {
      const coverage = coverageOf(sentence, weights) / total;
      // Earlier passages ranked higher in retrieval: a small tie-breaker, never a reason on its own.
      const score = coverage + 0.02 / passage.number;
      scored.push({ text: sentence, passage: passage.number, order: order++, score, coverage });
    }
  }
  const chosen = scored
    .filter((sentence) => sentence.coverage >= minCoverage)
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .filter(uniqueText())
    .slice(0, maxSentences)
    .sort((a, b) => a.passage - b.passage || a.order - b.order);
  if (chosen.length === 0) return NOTHING_FOUND;
  return chosen.map((sentence) => `${sentence.text} [${sentence.passage}]`).join(' ');
}

/**
 * Query stems weighted by rarity across the passages: a term in every passage ("the product")
 * says little about which sentence answers; a term in one passage says a lot.
 */
function termWeights(query: string, passages: readonly GroundingPassage[]): Map<string, number> {
  const stems = [...new Set(extractQueryTerms(query).map((term) => stemmer(term)))];
  const passageStems = passages.map((passage) => new Set(splitWords(passage.text).map((word) => stemmer(word))));
  const weights = new Map<string, number>();
  for (const stem of stems) {
    // A term no passage contains still counts against coverage (the passages may not answer the
    // question at all), but only as much as a term of one passage: otherwise filler words of the
    // question ("how long does it take") would outweigh the words the passages do share.
    const df = Math.max(1, passageStems.filter((set) => set.has(stem)).length);
    weights.set(stem, Math.log(1 + (passages.length + 1) / (df + 0.5)));
  }
  return weights;
}

function coverageOf(sentence: string, weights: ReadonlyMap<string, number>): number {
  const present = new Set(splitWords(sentence).map((word) => stemmer(word)));
  let covered = 0;
  for (const [stem, weight] of weights) if (present.has(stem)) covered += weight;
  return covered;
}

function uniqueText(): (sentence: ScoredSentence) => boolean {
  const seen = new Set<string>();
  return (sentence) => {
    const key = sentence.text.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
}

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
