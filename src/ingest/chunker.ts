import { createHash } from 'node:crypto';
import { invalidRequest, type FieldIssue } from '../errors.js';
import type { LoadedSection } from '../ports/loader.js';
import { insideCluster, sentenceSpans, Strength, wordSpans, type Span } from './boundaries.js';
import { cl100kTokenizer, type Tokenizer } from './tokenizer.js';
import { TimeSlices } from '../util/time-slices.js';

export interface ChunkOptions {
  /** Maximum tokens per chunk (default 512, at least 16). Never exceeded. */
  chunkSize?: number;
  /** Tokens repeated from the end of the previous chunk, below chunkSize / 2 (default chunkSize / 8, at most 64). */
  overlap?: number;
  /** Defaults to cl100k_base. */
  tokenizer?: Tokenizer;
}

export interface TextChunk {
  /** Trimmed, verbatim slice of the joined text: `joined.startsWith(text, charOffset)` always holds. */
  text: string;
  /** Exact `tokenizer.count(text)`, at most `chunkSize`. */
  tokenCount: number;
  /** UTF-16 offset in the sections' texts joined with "\n\n". Overlapping text is included. */
  charOffset: number;
  pageNumber: number | null;
  /** SHA-256 hex of `text`. */
  hash: string;
}

interface Unit extends Span {
  tokens: number;
}

/** Where the next chunk starts inside text already emitted, with its estimated token count. */
interface Carry {
  start: number;
  tokens: number;
}

interface Resolved {
  chunkSize: number;
  overlap: number;
  tokenizer: Tokenizer;
}

// A paragraph or sentence break is preferred over filling the chunk to the brim, but not when it
// would leave the chunk less than half full.
const MIN_FILL = 0.5;

function resolveOptions(options: ChunkOptions): Resolved {
  const chunkSize = options.chunkSize ?? 512;
  const overlap = options.overlap ?? (Number.isInteger(chunkSize) ? Math.min(64, Math.floor(chunkSize / 8)) : 0);
  const issues: FieldIssue[] = [];
  if (!Number.isInteger(chunkSize) || chunkSize < 16) {
    issues.push({ path: 'chunkSize', message: 'must be an integer of at least 16' });
  }
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= chunkSize / 2) {
    issues.push({ path: 'overlap', message: 'must be an integer from 0 to below chunkSize / 2' });
  }
  if (issues.length > 0) throw invalidRequest('Invalid chunking options', issues);
  return { chunkSize, overlap, tokenizer: options.tokenizer ?? cl100kTokenizer() };
}

/**
 * Splits loaded sections into chunks of at most `chunkSize` tokens. Cuts prefer paragraph breaks, then
 * sentence ends and line breaks, then spaces, and only then fall inside a run of characters. Each chunk
 * after the first of a page starts with the trailing whole sentences (or, when one sentence is longer
 * than `overlap`, the trailing words) of the previous chunk, up to `overlap` tokens. A chunk never spans
 * two pages; consecutive sections with the same page number (or none) are chunked as one text, except
 * `standalone` sections, which are chunked on their own.
 */
export function chunkSections(sections: readonly LoadedSection[] | string, options: ChunkOptions = {}): TextChunk[] {
  const steps = chunkSteps(sections, options);
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/**
 * {@link chunkSections} in slices of at most about `sliceMs` of synchronous work, handing the event
 * loop back in between: chunking a 50 KB document is 20-50 ms of tokenizer work, which as one step
 * was the longest event-loop stall of ingestion once the SQLite checkpoints had moved off the
 * main thread. Same chunks as the synchronous call.
 */
export async function chunkSectionsYielding(
  sections: readonly LoadedSection[] | string,
  options: ChunkOptions = {},
  sliceMs = 8,
  limit?: ChunkLimit,
): Promise<TextChunk[]> {
  const steps = chunkSteps(sections, options);
  const slices = new TimeSlices(sliceMs);
  let step = steps.next();
  while (!step.done) {
    if (limit !== undefined && steps.cut() > limit.maxChunks) throw limit.exceeded();
    // A step is one sentence: checked without an await, which would cost a microtask per sentence.
    if (slices.due) await slices.nextSlice();
    step = steps.next();
  }
  if (limit !== undefined && step.value.length > limit.maxChunks) throw limit.exceeded();
  return step.value;
}

/** Stops chunking once more than `maxChunks` chunks are cut, throwing what `exceeded` returns. */
export interface ChunkLimit {
  maxChunks: number;
  exceeded(): Error;
}

/** The chunker as steps that also tell how many chunks are cut so far. */
function chunkSteps(sections: readonly LoadedSection[] | string, options: ChunkOptions): Generator<void, TextChunk[]> & { cut(): number } {
  const chunks: TextChunk[] = [];
  return Object.assign(stepsInto(chunks, sections, options), { cut: () => chunks.length });
}

/** The chunker as steps: it pauses after each sentence measured and each chunk cut. */
function* stepsInto(chunks: TextChunk[], sections: readonly LoadedSection[] | string, options: ChunkOptions): Generator<void, TextChunk[]> {
  const resolved = resolveOptions(options);
  const list: readonly LoadedSection[] = typeof sections === 'string' ? [{ text: sections }] : sections;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- `as unknown` keeps Array.isArray from narrowing the readonly array to any[] for the rest of the function
  if (!Array.isArray(list as unknown)) throw invalidRequest('sections must be an array or a string');
  const starts: number[] = [];
  let length = 0;
  list.forEach((section, index) => {
    if (typeof section?.text !== 'string') {
      throw invalidRequest('Invalid sections', [{ path: `sections.${index}.text`, message: 'must be a string' }]);
    }
    if (index > 0) length += 2;
    starts.push(length);
    length += section.text.length;
  });
  const joined = list.map((section) => section.text).join('\n\n');
  let first = 0;
  while (first < list.length) {
    const page = list[first]!.pageNumber ?? null;
    let last = first;
    const mergeable = (index: number) => !list[index]!.standalone && (list[index]!.pageNumber ?? null) === page;
    if (!list[first]!.standalone) while (last + 1 < list.length && mergeable(last + 1)) last++;
    const from = starts[first]!;
    const to = starts[last]! + list[last]!.text.length;
    if (!fitsWhole(joined, from, to, page, resolved, chunks)) {
      const units = yield* measureUnits(joined, from, to, resolved);
      if (units.length > 0) yield* packUnits(joined, units, page, resolved, chunks);
    }
    first = last + 1;
    yield;
  }
  return chunks;
}

// Short pages (most PDF pages, most web sections) fit in one chunk: one count instead of two passes.
function fitsWhole(text: string, from: number, to: number, page: number | null, options: Resolved, out: TextChunk[]): boolean {
  if (to - from > options.chunkSize * 6) return false;
  const chunk = trimmedChunk(text, from, to);
  if (chunk.text.length === 0) return true;
  const tokenCount = options.tokenizer.count(chunk.text);
  if (tokenCount > options.chunkSize) return false;
  out.push(makeChunk(chunk, tokenCount, page));
  return true;
}

function makeChunk(chunk: { text: string; offset: number }, tokenCount: number, page: number | null): TextChunk {
  return {
    text: chunk.text,
    tokenCount,
    charOffset: chunk.offset,
    pageNumber: page,
    hash: createHash('sha256').update(chunk.text).digest('hex'),
  };
}

/**
 * A span longer than this many characters per token of the budget is not counted whole: it cannot
 * fit (cleanText collapses the space runs that make long tokens) and counting it would be one long
 * synchronous tokenizer call, a stall as long as the span. It goes straight to the next level down.
 */
const MAX_CHARS_PER_TOKEN = 16;

/** Sentences with their token counts, oversized ones broken into words and then token runs. */
function* measureUnits(text: string, from: number, to: number, options: Resolved): Generator<void, Unit[]> {
  let contentStart = from;
  while (contentStart < to && /\s/.test(text[contentStart]!)) contentStart++;
  if (contentStart === to) return [];
  const units: Unit[] = [];
  for (const sentence of sentenceSpans(text, from, to, Strength.paragraph)) {
    yield* appendMeasured(text, sentence, options, units, 'sentence');
    yield;
  }
  return units;
}

function* appendMeasured(text: string, span: Span, options: Resolved, units: Unit[], level: 'sentence' | 'word'): Generator<void, void> {
  const countable = span.end - span.start <= options.chunkSize * MAX_CHARS_PER_TOKEN;
  const tokens = countable ? options.tokenizer.count(text.slice(span.start, span.end)) : Infinity;
  if (tokens <= options.chunkSize) {
    units.push({ ...span, tokens });
  } else if (level === 'sentence') {
    for (const word of wordSpans(text, span.start, span.end, span.strength)) {
      yield* appendMeasured(text, word, options, units, 'word');
      yield;
    }
  } else {
    for (const unit of tokenRuns(text, span, options.chunkSize, options.tokenizer)) {
      units.push(unit);
      yield;
    }
  }
}

/**
 * Cuts a run without spaces after at most `budget` tokens, never inside a character or an emoji.
 * Linear in the run: each cut costs one count of a window and a bisection of counts over prefixes
 * of it (never a decode of token prefixes, which made 10 KB of family emoji take 10 s), and the
 * window follows the length of the previous cut, so text of many tokens per character (emoji,
 * combining marks) does not re-tokenize far more than it keeps.
 */
function* tokenRuns(text: string, span: Span, budget: number, tokenizer: Tokenizer): Generator<Unit, void> {
  let start = span.start;
  // Tokens rarely average more than 8 characters, so a window of 8 per token holds a full chunk.
  let windowChars = budget * 8;
  while (start < span.end) {
    let windowEnd = Math.min(span.end, start + windowChars);
    while (windowEnd < span.end && windowEnd > start + 2 && insideCluster(text, windowEnd)) windowEnd--;
    const windowTokens = tokenizer.count(text.slice(start, windowEnd));
    let end = windowEnd;
    let tokens = windowTokens;
    if (windowTokens > budget) {
      [end, tokens] = fittingPrefix(text, start, windowEnd, windowTokens, budget, tokenizer);
      let clusterEnd = end;
      while (clusterEnd > start && insideCluster(text, clusterEnd)) clusterEnd--;
      // A run that is one long emoji sequence has no clean cut: keep the code point boundary then.
      if (clusterEnd > start && clusterEnd < end) {
        end = clusterEnd;
        tokens = tokenizer.count(text.slice(start, end));
      }
      windowChars = Math.min(budget * 8, Math.max(budget, 2 * (end - start)));
    }
    const last = end >= span.end;
    yield { start, end, tokens, strength: last ? span.strength : Strength.token };
    start = end;
  }
}

/**
 * The longest `[start, end)` within the window, ending on a code point boundary, whose count is
 * within `budget`, with that count: a bisection started at the window's own characters-per-token
 * estimate. Counts of prefixes grow with the prefix (a BPE merge across the cut moves them by a
 * token at most), so the end found always fits and is at most a token or so short of the longest.
 */
function fittingPrefix(
  text: string,
  start: number,
  windowEnd: number,
  windowTokens: number,
  budget: number,
  tokenizer: Tokenizer,
): [number, number] {
  let fits = start;
  let fitsTokens = 0;
  let over = windowEnd;
  let guess = start + Math.floor(((windowEnd - start) * budget) / windowTokens);
  while (over - fits > 1) {
    let mid = guess > fits && guess < over ? guess : fits + Math.floor((over - fits) / 2);
    guess = -1;
    if (isLowSurrogate(text.charCodeAt(mid))) mid = mid - 1 > fits ? mid - 1 : mid + 1;
    if (mid <= fits || mid >= over) break;
    const tokens = tokenizer.count(text.slice(start, mid));
    if (tokens <= budget) {
      fits = mid;
      fitsTokens = tokens;
    } else over = mid;
  }
  if (fits > start) return [fits, fitsTokens];
  // Unreachable with cl100k (no character needs more than 4 tokens, budgets are at least 8); a safe
  // code point boundary keeps other tokenizers going.
  const end = start + (isHighSurrogate(text.charCodeAt(start)) ? 2 : 1);
  return [end, tokenizer.count(text.slice(start, end))];
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

function trimmedChunk(text: string, start: number, end: number): { text: string; offset: number } {
  const raw = text.slice(start, end);
  const trimmed = raw.trim();
  return { text: trimmed, offset: start + (raw.length - raw.trimStart().length) };
}

/** Index of the unit that ends the chunk: the strongest break that leaves the chunk at least half full. */
function chooseEnd(units: readonly Unit[], first: number, limit: number, carried: number, chunkSize: number): number {
  if (limit === units.length) return limit - 1;
  let best = limit - 1;
  let bestStrength = -1;
  let fill = carried;
  for (let index = first; index < limit; index++) {
    fill += units[index]!.tokens;
    if (fill >= chunkSize * MIN_FILL && units[index]!.strength >= bestStrength) {
      best = index;
      bestStrength = units[index]!.strength;
    }
  }
  return best;
}

function* packUnits(text: string, units: Unit[], page: number | null, options: Resolved, out: TextChunk[]): Generator<void, void> {
  const { chunkSize, tokenizer } = options;
  let carry: Carry[] = [];
  let next = 0;
  while (next < units.length) {
    let carried = carry.reduce((sum, piece) => sum + piece.tokens, 0);
    while (carry.length > 0 && carried + units[next]!.tokens > chunkSize) carried -= carry.shift()!.tokens;
    let limit = next;
    let fill = carried;
    while (limit < units.length && fill + units[limit]!.tokens <= chunkSize) fill += units[limit++]!.tokens;
    if (limit === next) limit = next + 1;
    let end = chooseEnd(units, next, limit, carried, chunkSize);
    let chunkStart = carry[0]?.start ?? units[next]!.start;
    let chunk = trimmedChunk(text, chunkStart, units[end]!.end);
    let tokenCount = tokenizer.count(chunk.text);
    // Counts of pieces do not always add up exactly (the BPE merges across a cut differently), so the
    // estimate is checked and the chunk shrunk until the exact count fits.
    while (tokenCount > chunkSize) {
      if (carry.length > 0) carry.shift();
      else if (end > next) end--;
      else {
        const budget = Math.max(8, chunkSize - (tokenCount - chunkSize) - 1);
        const tighter = [...tokenRuns(text, units[next]!, budget, tokenizer)];
        units.splice(next, 1, ...tighter);
        end = next;
      }
      chunkStart = carry[0]?.start ?? units[next]!.start;
      chunk = trimmedChunk(text, chunkStart, units[end]!.end);
      tokenCount = tokenizer.count(chunk.text);
    }
    if (chunk.text.length > 0) {
      out.push(makeChunk(chunk, tokenCount, page));
    }
    carry = overlapAfter(text, units, end, chunkStart, options);
    next = end + 1;
    yield;
  }
}

/**
 * Whole trailing sentences within `overlap` tokens or, failing that, trailing words of the last one.
 * The carry never reaches back to the chunk's own start, so every chunk adds text.
 */
function overlapAfter(text: string, units: readonly Unit[], end: number, chunkStart: number, options: Resolved): Carry[] {
  const { overlap, tokenizer } = options;
  if (overlap === 0) return [];
  const carry: Carry[] = [];
  let total = 0;
  for (let index = end; index >= 0 && units[index]!.start > chunkStart; index--) {
    const unit = units[index]!;
    if (total + unit.tokens > overlap || unit.strength === Strength.token) break;
    carry.unshift({ start: unit.start, tokens: unit.tokens });
    total += unit.tokens;
  }
  if (carry.length > 0) return carry;
  const last = units[end]!;
  if (last.strength === Strength.token) return carry;
  const words = [...wordSpans(text, Math.max(last.start, chunkStart), last.end, last.strength)];
  for (let index = words.length - 1; index > 0; index--) {
    const word = words[index]!;
    const tokens = tokenizer.count(text.slice(word.start, word.end));
    if (total + tokens > overlap) break;
    carry.unshift({ start: word.start, tokens });
    total += tokens;
  }
  return carry;
}
