import { createRequire } from 'node:module';
import { stemmer } from 'stemmer';
import { RagdeskError } from '../../src/errors.js';
import type { ChatModel, ChatRequest, ChatResult, ChatStreamPart, ChatUsage, GroundingPassage } from '../../src/ports/chat-model.js';
import { extractQueryTerms, splitWords } from '../../src/text/query-terms.js';
import { splitUnits } from './sentences.js';
import { ENGLISH_STOPWORDS } from '../../src/text/stopwords.js';

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
  const slot = answerSlot(grounding.query);
  const focus = focusWeights(grounding.query, weights);
  const focusTotal = [...focus.values()].reduce((sum, weight) => sum + weight, 0) || 1;
  // Without the instruction to answer only from the documents, a weaker match is still offered.
  const restrict = grounding.restrictKnowledge !== false;
  // Answering only from the documents: when words of the question are in no passage at all
  // ("Australia" in "the capital of Australia"), the documents do not hold what it asks.
  if (restrict && missingShare(weights, grounding.passages) / total >= MISSING_ENOUGH) return NOTHING_FOUND;
  const scored: ScoredSentence[] = [];
  let order = 0;
  grounding.passages.forEach((passage, rank) => {
    // Footnote marks of the document ("[12]") would read as citations of the answer.
    const text = passage.text.replace(FOOTNOTE, '');
    const passageCoverage = coverageOf(stemsOf(text), weights) / total;
    for (const unit of splitUnits(text)) {
      if (unit.kind === 'heading') continue;
      const stems = stemsOf(unit.text);
      // A line that only repeats the question's words ("Booking Agency", a title) answers nothing.
      if (![...stems].some((stem) => !weights.has(stem) && !ENGLISH_STOPWORDS.has(stem) && stem.length > 1)) continue;
      const contextStems = minus(stemsOf(unit.context), stems);
      const own = coverageOf(stems, weights) / total;
      const described = coverageOf(contextStems, weights) / total;
      const coverage = own + CONTEXT_SHARE * described;
      // The heading or header naming a field counts in full for the focus: it is what the row is.
      const focused = coverageOf(new Set([...stems, ...contextStems]), focus) / focusTotal;
      // Enough when the unit covers enough of the question, or much of its focus in a passage
      // that covers the rest ("GRAND TOTAL 5,738" on the page naming the estimate's customer).
      if (coverage < minCoverage && !(focused >= FOCUS_ENOUGH && passageCoverage >= PASSAGE_ENOUGH)) continue;
      const score =
        coverage +
        FOCUS_SHARE * focused +
        PASSAGE_SHARE * passageCoverage +
        slotBonus(slot, unit.text, stems, weights) -
        (LENGTH_COST * Math.max(0, unit.text.length - 120)) / 100 +
        // Earlier passages ranked higher in retrieval: a small tie-breaker, never a reason on its own.
        0.01 / (rank + 1);
      scored.push({ text: unit.text, passage: passage.number, order: order++, score, coverage });
    }
  });
  const ranked = scored.sort((a, b) => b.score - a.score || a.order - b.order).filter(uniqueText());
  const best = ranked[0];
  if (!best) return NOTHING_FOUND;
  // Further sentences only when they answer nearly as well: three weak quotes read as noise.
  const chosen = ranked.filter((sentence) => sentence.score >= best.score * KEEP_RATIO).slice(0, maxSentences);
  return chosen.map((sentence) => `${sentence.text} [${sentence.passage}]`).join(' ');
}

/** `[12]`: a document's own footnote mark. */
const FOOTNOTE = /\[\d{1,4}\]/g;
/** Share of the focus a unit needs when the question is mostly covered by its passage. */
const FOCUS_ENOUGH = 0.5;
/** Share of the question a passage must cover for a unit holding enough of the focus to answer. */
const PASSAGE_ENOUGH = 0.5;
/** How much covering what the question asks about (its focus) counts beside covering all of it. */
const FOCUS_SHARE = 0.5;
/** How much of the question a unit's heading or table header may cover for it. */
const CONTEXT_SHARE = 0.6;
/** How much the whole passage's coverage counts: it tells which page or file the question is about. */
const PASSAGE_SHARE = 0.35;
/** Per 100 characters beyond 120: with equal coverage, the shorter quote answers more directly. */
const LENGTH_COST = 0.02;
/** Share of the best score a further sentence needs to be quoted too. */
const KEEP_RATIO = 0.8;
/** Share of the question's weight in no passage at which the documents are taken not to answer it. */
const MISSING_ENOUGH = 0.35;

type Slot = 'number' | 'name' | 'date' | 'thing';

/** What kind of value the question asks for, from its first words. */
function answerSlot(query: string): { kind: Slot; head: string | null } {
  const q = query.toLowerCase();
  let kind: Slot = 'thing';
  if (/\b(how (many|much|old|long|far)|total|cost|price|amount|number of|percentage|rate)\b/.test(q)) kind = 'number';
  else if (/^\s*(when|what (year|date|day))\b/.test(q)) kind = 'date';
  else if (/^\s*(who|whom|whose)\b/.test(q)) kind = 'name';
  // The noun the question asks about: "what is the VIN of…" → vin, "which card…" → card.
  const head = /^\s*(?:what|which)\s+(?:(?:is|are|was|were)\s+)?(?:the\s+|a\s+|an\s+)?(?:\S+'s\s+)?([\p{L}\p{N}-]+)/u.exec(q)?.[1];
  const headStem = head && !ENGLISH_STOPWORDS.has(head) ? stemmer(head) : null;
  return { kind, head: headStem };
}

/** Bonus for a unit that holds the kind of value asked for, beside the question's own words. */
function slotBonus(
  slot: { kind: Slot; head: string | null },
  text: string,
  stems: ReadonlySet<string>,
  weights: ReadonlyMap<string, number>,
): number {
  let bonus = 0;
  if (slot.head && stems.has(slot.head)) bonus += 0.15;
  const hasNumber = /\d/.test(text.replace(/\[\d+\]/g, ''));
  if ((slot.kind === 'number' || slot.kind === 'date') && hasNumber) bonus += 0.12;
  if (slot.kind === 'date' && /\b(1[5-9]|20)\d\d\b/.test(text)) bonus += 0.05;
  if (slot.kind === 'name' && /\b\p{Lu}\p{Ll}+\s+\p{Lu}\p{Ll}+/u.test(text)) bonus += 0.1;
  // A field whose key holds the question's words: the value beside it is the answer.
  const key = /^\|?\s*([^|:]{1,40})(?::|\s\|)/.exec(text)?.[1];
  if (key && [...stemsOf(key)].some((stem) => weights.has(stem))) bonus += 0.08;
  return bonus;
}

/** Words that end the question's focus: what follows them places it (which file, page, person). */
const FOCUS_END = new Set(
  'of on for in at by from to with about during did does do is was are were has have had will would can could should'.split(' '),
);

/**
 * The question's focus: the words right after its question word, up to the first preposition or
 * verb ("what is the grand total on the estimate for X" → grand, total). The rest of the question
 * says where to look (the passage's coverage); the focus says which sentence there answers.
 */
function focusWeights(query: string, weights: ReadonlyMap<string, number>): Map<string, number> {
  // "the receipt's subtotal": the owner places it, the subtotal is asked for. "the value of key2":
  // a generic noun asks for what follows it.
  const words = splitWords(
    query.replace(/\b[\p{L}\p{N}-]+['’]s\s+/gu, ' ').replace(/\b(value|name|title|number|amount|kind|type)\s+of\b/gi, ' '),
  );
  let start = words.findIndex((word) => /^(what|which|who|whom|whose|when|where|how|name|list)$/.test(word));
  start = start === -1 ? 0 : start + 1;
  while (
    start < words.length &&
    (ENGLISH_STOPWORDS.has(words[start] as string) || /^(many|much|old|long|far)$/.test(words[start] as string))
  ) {
    start++;
  }
  const focus = new Map<string, number>();
  for (const word of words.slice(start)) {
    if (FOCUS_END.has(word) && focus.size > 0) break;
    const weight = weights.get(stemmer(word));
    if (weight !== undefined) focus.set(stemmer(word), weight);
  }
  return focus;
}

/** Weight of the question's terms that no passage contains. */
function missingShare(weights: ReadonlyMap<string, number>, passages: readonly GroundingPassage[]): number {
  const all = new Set(passages.flatMap((passage) => [...stemsOf(passage.text)]));
  let missing = 0;
  for (const [stem, weight] of weights) if (!all.has(stem)) missing += weight;
  return missing;
}

function stemsOf(text: string): Set<string> {
  return new Set(splitWords(text).map((word) => stemmer(word)));
}

function minus(set: ReadonlySet<string>, remove: ReadonlySet<string>): Set<string> {
  return new Set([...set].filter((value) => !remove.has(value)));
}

/**
 * Query stems weighted by rarity across the passages: a term in every passage ("the product")
 * says little about which sentence answers; a term in one passage says a lot.
 */
function termWeights(query: string, passages: readonly GroundingPassage[]): Map<string, number> {
  const stems = [...new Set(extractQueryTerms(query).map((term) => stemmer(term)))];
  const passageStems = passages.map((passage) => stemsOf(passage.text));
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

function coverageOf(present: ReadonlySet<string>, weights: ReadonlyMap<string, number>): number {
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
