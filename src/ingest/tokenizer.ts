import { createRequire } from 'node:module';
import { isSpace } from './boundaries.js';

/** Counts and splits text in model tokens; chunk sizes and prompt budgets are measured with it. */
export interface Tokenizer {
  /** Encoding name, e.g. `cl100k_base`. */
  readonly name: string;
  /** Token ids. Special-token markers such as `<|endoftext|>` are encoded as ordinary text. */
  encode(text: string): number[];
  decode(tokens: readonly number[]): string;
  /** Same as `encode(text).length`, without building the array. */
  count(text: string): number;
}

/** The slice of gpt-tokenizer's per-encoding module that we use. */
interface GptTokenizerEncoding {
  encode(text: string, options?: { disallowedSpecial?: Set<string> }): number[];
  decode(tokens: Iterable<number>): string;
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
  clearMergeCache(): void;
}

// An empty disallow-list (and no allow-list) makes the library encode `<|endoftext|>` and friends
// as plain text instead of throwing: user documents can and do contain them.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

let cl100k: GptTokenizerEncoding | undefined;

// gpt-tokenizer measured 4.5 MB/s cold and ~9 MB/s warm on 5 MB of English here against 1.0–1.4 MB/s
// for js-tiktoken, with identical token ids. Its rank table costs ~130 ms and ~50 MB to load, so it is
// required on first use rather than imported: the interface is synchronous, and a dynamic `import()`
// would force every caller to await.
function loadCl100k(): GptTokenizerEncoding {
  if (cl100k === undefined) {
    const require = createRequire(import.meta.url);
    cl100k = require('gpt-tokenizer/encoding/cl100k_base') as GptTokenizerEncoding;
  }
  return cl100k;
}

/**
 * Byte-pair merging is quadratic in the length of one pre-token, and a run without spaces is one
 * pre-token: 64 KB of `aaaa…` took 7 s of main-thread CPU. Runs longer than this are encoded in
 * slices of this many characters. Ordinary text has no such run and keeps exactly the ids of a
 * whole-text encoding; in the long runs (base64, hex dumps, garbage) ids differ only at the cuts,
 * and decoding still gives the text back.
 */
const MAX_RUN = 100;
const LONG_RUN = new RegExp(`\\S{${MAX_RUN + 1},}`, 'g');

/**
 * Whether `text` holds a run of more than {@link MAX_RUN} non-space code units (`\s`, and NEL,
 * which only ends a run sooner). Not a regular expression: it retried its match from every
 * character of every word, 0.3 s of each second of counting SciFact's abstracts. A plain space ends
 * every run, so the search jumps from one to the next (`indexOf`, native) and reads code units only
 * in a gap longer than the limit, where other white space may end the run sooner: on SciFact's
 * 7.8 MB of abstracts 17 ms instead of 71 for a test of every code unit.
 */
export function hasLongRun(text: string): boolean {
  for (let from = 0; from < text.length;) {
    let space = text.indexOf(' ', from);
    if (space === -1) space = text.length;
    if (space - from > MAX_RUN && gapHasLongRun(text, from, space)) return true;
    from = space + 1;
  }
  return false;
}

function gapHasLongRun(text: string, start: number, end: number): boolean {
  let run = 0;
  for (let i = start; i < end; i++) {
    if (isSpace(text.charCodeAt(i))) run = 0;
    else if (++run > MAX_RUN) return true;
  }
  return false;
}

/** The text cut inside long runs only; undefined when there is none (the common case). */
function slices(text: string): string[] | undefined {
  if (!hasLongRun(text)) return undefined;
  const pieces: string[] = [];
  let start = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    const end = match.index + match[0].length;
    for (let cut = match.index + MAX_RUN; cut < end; cut += MAX_RUN) {
      pieces.push(text.slice(start, cut));
      start = cut;
    }
  }
  pieces.push(text.slice(start));
  return pieces;
}

/**
 * gpt-tokenizer keeps an LRU cache of up to 100,000 pre-tokens (a Map, hits moved to the end). It
 * makes ordinary text 2-3x faster, but once it holds thousands of entries, text that repeats a few
 * pre-tokens in rotation (`<|endoftext|>` runs, punctuation and digit patterns) costs tens of µs per
 * hit: measured 24-60 KB/s instead of MB/s, for every later document of the process too (280 KB of
 * `<|endoftext|> ` runs: 0.5 s fresh, 12-15 s after 3 MB of English; 2-3 s with this guard). So
 * throughput is watched over short windows, and a window slower than this (ordinary text runs at
 * 500+ characters/ms even cold) clears the cache, which never changes token ids and refills from
 * the text that follows.
 */
const SLOW_CHARS_PER_MS = 100;
/** A window closes after this many characters or this much tokenizing time, whichever comes first. */
const WINDOW_CHARS = 64 * 1024;
const WINDOW_MS = 50;
let windowChars = 0;
let windowMs = 0;

function watched<T>(text: string, run: () => T): T {
  const started = performance.now();
  const result = run();
  windowMs += performance.now() - started;
  windowChars += text.length;
  if (windowChars >= WINDOW_CHARS || windowMs >= WINDOW_MS) {
    if (windowChars / windowMs < SLOW_CHARS_PER_MS) loadCl100k().clearMergeCache();
    windowChars = 0;
    windowMs = 0;
  }
  return result;
}

function encodeCl100k(text: string): number[] {
  return watched(text, () => {
    const pieces = slices(text);
    if (!pieces) return loadCl100k().encode(text, PLAIN_TEXT);
    return pieces.flatMap((piece) => loadCl100k().encode(piece, PLAIN_TEXT));
  });
}

function countCl100k(text: string): number {
  if (text.length === 0) return 0;
  return watched(text, () => {
    const pieces = slices(text);
    if (!pieces) return loadCl100k().countTokens(text, PLAIN_TEXT);
    return pieces.reduce((sum, piece) => sum + loadCl100k().countTokens(piece, PLAIN_TEXT), 0);
  });
}

const cl100kInstance: Tokenizer = {
  name: 'cl100k_base',
  encode: encodeCl100k,
  decode: (tokens) => loadCl100k().decode(tokens),
  count: countCl100k,
};

/**
 * The cl100k_base encoding (GPT-4, GPT-3.5, text-embedding-3-*). The encoding tables load lazily on
 * the first call, so importing the core stays cheap.
 */
export function cl100kTokenizer(): Tokenizer {
  return cl100kInstance;
}
