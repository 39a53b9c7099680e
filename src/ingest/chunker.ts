import { createHash } from 'node:crypto';
import { invalidRequest, type FieldIssue } from '../errors.js';
import type { LoadedSection } from '../ports/loader.js';
import { insideCluster, sentenceSpans, Strength, wordSpans, type Span } from './boundaries.js';
import { cl100kTokenizer, type Tokenizer } from './tokenizer.js';

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
): Promise<TextChunk[]> {
  const steps = chunkSteps(sections, options);
  let sliceStarted = performance.now();
  let step = steps.next();
  while (!step.done) {
    if (performance.now() - sliceStarted >= sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStarted = performance.now();
    }
    step = steps.next();
  }
  return step.value;
}

/** The chunker as steps: it pauses after each sentence measured and each chunk cut. */
function* chunkSteps(sections: readonly LoadedSection[] | string, options: ChunkOptions): Generator<void, TextChunk[]> {
  const resolved = resolveOptions(options);
  const list: readonly LoadedSection[] = typeof sections === 'string' ? [{ text: sections }] : sections;
  if (!Array.isArray(list)) throw invalidRequest('sections must be an array or a string');
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
  const chunks: TextChunk[] = [];
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

/** Sentences with their token counts, oversized ones broken into words and then token runs. */
function* measureUnits(text: string, from: number, to: number, options: Resolved): Generator<void, Unit[]> {
  let contentStart = from;
  while (contentStart < to && /\s/.test(text[contentStart]!)) contentStart++;
  if (contentStart === to) return [];
  const units: Unit[] = [];
  for (const sentence of sentenceSpans(text, from, to, Strength.paragraph)) {
    appendMeasured(text, sentence, options, units, 'sentence');
    yield;
  }
  return units;
}

function appendMeasured(text: string, span: Span, options: Resolved, units: Unit[], level: 'sentence' | 'word'): void {
  const tokens = options.tokenizer.count(text.slice(span.start, span.end));
  if (tokens <= options.chunkSize) {
    units.push({ ...span, tokens });
  } else if (level === 'sentence') {
    for (const word of wordSpans(text, span.start, span.end, span.strength)) appendMeasured(text, word, options, units, 'word');
  } else {
    units.push(...tokenRuns(text, span, options.chunkSize, options.tokenizer));
  }
}

/** Cuts a run without spaces after at most `budget` tokens, never inside a character or an emoji. */
function tokenRuns(text: string, span: Span, budget: number, tokenizer: Tokenizer): Unit[] {
  const units: Unit[] = [];
  let start = span.start;
  while (start < span.end) {
    // Tokens rarely average more than 8 characters, so a window of 8 per token holds a full chunk.
    let windowEnd = Math.min(span.end, start + budget * 8);
    while (windowEnd < span.end && windowEnd > start + 2 && insideCluster(text, windowEnd)) windowEnd--;
    const window = text.slice(start, windowEnd);
    const tokens = tokenizer.encode(window);
    let end = windowEnd;
    if (tokens.length > budget) {
      end = start + longestPrefix(window, tokens, budget, tokenizer);
      let clusterEnd = end;
      while (clusterEnd > start && insideCluster(text, clusterEnd)) clusterEnd--;
      // A run that is one long emoji sequence has no clean cut: keep the code point boundary then.
      if (clusterEnd > start) end = clusterEnd;
    }
    const last = end >= span.end;
    const slice = text.slice(start, end);
    units.push({ start, end, tokens: tokenizer.count(slice), strength: last ? span.strength : Strength.token });
    start = end;
  }
  return units;
}

/** Characters covered by the longest prefix of `tokens` that decodes to whole characters within budget. */
function longestPrefix(window: string, tokens: readonly number[], budget: number, tokenizer: Tokenizer): number {
  for (let keep = budget; keep > 0; keep--) {
    const piece = tokenizer.decode(tokens.slice(0, keep));
    // A token boundary inside a multi-byte character decodes to U+FFFD, which is no prefix of the text.
    if (piece.length > 0 && window.startsWith(piece) && tokenizer.count(piece) <= budget) return piece.length;
  }
  // Unreachable with cl100k (no character needs more than 4 tokens, budgets are at least 16); a safe
  // code point boundary keeps other tokenizers going.
  return window.codePointAt(0)! > 0xffff ? 2 : 1;
}

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
        const tighter = tokenRuns(text, units[next]!, budget, tokenizer);
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
  const words = wordSpans(text, Math.max(last.start, chunkStart), last.end, last.strength);
  for (let index = words.length - 1; index > 0; index--) {
    const word = words[index]!;
    const tokens = tokenizer.count(text.slice(word.start, word.end));
    if (total + tokens > overlap) break;
    carry.unshift({ start: word.start, tokens });
    total += tokens;
  }
  return carry;
}
