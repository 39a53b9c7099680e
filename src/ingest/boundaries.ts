/**
 * Where text may be cut, and how good a cut each place is. Spans are offsets into one shared string
 * so no substrings are made while segmenting.
 */

/** Higher is a better place to end a chunk. */
export const Strength = { token: 0, word: 1, line: 2, sentence: 3, paragraph: 4 } as const;

/**
 * `[start, end)` of the source string. Spans of one region tile it exactly: each span starts with the
 * whitespace before its content and ends right after its content (the last one at the region end), so
 * a leading space stays attached to the word that follows it, as in the BPE pre-tokenizer.
 */
export interface Span {
  start: number;
  end: number;
  /** How good a cut the end of this span is. */
  strength: number;
}

// Single-period abbreviations that rarely end a sentence in the text we ingest (papers, docs, mail).
const ABBREVIATIONS = new Set([
  'al',
  'approx',
  'ca',
  'cf',
  'co',
  'corp',
  'dept',
  'dr',
  'e.g',
  'eg',
  'eq',
  'est',
  'etc',
  'fig',
  'figs',
  'i.e',
  'ie',
  'inc',
  'jr',
  'ltd',
  'mr',
  'mrs',
  'ms',
  'no',
  'nos',
  'p',
  'pp',
  'prof',
  'ref',
  'refs',
  'sr',
  'st',
  'vol',
  'vs',
  'u.s',
  'u.k',
]);

// A run of sentence terminators with closing quotes or brackets, then whitespace; CJK terminators need
// no whitespace after them. Line breaks are found separately so spaces before them are never rescanned.
// Both runs only from their first character (the lookbehinds): tried inside a run of a million dots
// with no space after it, the search restarted at each dot, quadratic in the run.
const TERMINATOR =
  /(?<![.!?\u2026])[.!?\u2026]+["'\u201d\u2019)\]]*(?=\s)|(?<![\u3002\uff01\uff1f])[\u3002\uff01\uff1f]+["'\u201d\u2019\u300d\u300f)\]]*|\n/gu;

/** `\s` of a regular expression, and NEL. */
export function isSpace(code: number): boolean {
  return (
    code === 32 ||
    (code >= 9 && code <= 13) ||
    code === 0xa0 ||
    code === 0x3000 ||
    code === 0xfeff ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x1680 ||
    code === 0x85
  );
}

function isAbbreviation(text: string, dotIndex: number, from: number): boolean {
  let wordStart = dotIndex;
  while (wordStart > from) {
    const char = text[wordStart - 1]!;
    if (char !== '.' && !/\p{L}/u.test(char)) break;
    wordStart--;
  }
  const word = text.slice(wordStart, dotIndex).toLowerCase();
  return word.length === 1 || ABBREVIATIONS.has(word);
}

function nextContentIsLowercase(text: string, index: number, to: number): boolean {
  while (index < to && isSpace(text.charCodeAt(index))) index++;
  return index < to && /\p{Ll}/u.test(text[index]!);
}

/**
 * Splits `[from, to)` into sentences and lines, marking paragraph breaks (a blank line). Lazily, so
 * a caller working in slices never scans a whole 20 MB text in one go: a span is handed out once
 * the next one has started (a later rule at the same place may still strengthen it).
 */
export function* sentenceSpans(text: string, from: number, to: number, endStrength: number): Generator<Span, void> {
  let pending: Span | undefined;
  let spanStart = from;
  const terminator = new RegExp(TERMINATOR.source, TERMINATOR.flags);
  terminator.lastIndex = from;
  for (let match = terminator.exec(text); match !== null && match.index < to; match = terminator.exec(text)) {
    let at: number;
    let strength: number;
    if (match[0] === '\n') {
      let contentEnd = match.index;
      while (contentEnd > spanStart && isSpace(text.charCodeAt(contentEnd - 1))) contentEnd--;
      let after = match.index + 1;
      let newlines = 1;
      while (after < to && isSpace(text.charCodeAt(after))) {
        if (text.charCodeAt(after) === 10) newlines++;
        after++;
      }
      terminator.lastIndex = after;
      if (after >= to) continue;
      at = contentEnd;
      strength = newlines >= 2 ? Strength.paragraph : Strength.line;
    } else {
      const end = match.index + match[0].length;
      if (end >= to) break;
      const single = match[0].startsWith('.') && !match[0].startsWith('..');
      if (single && isAbbreviation(text, match.index, spanStart)) continue;
      if (match[0].charCodeAt(0) < 0x3000 && nextContentIsLowercase(text, end, to)) continue;
      at = end;
      strength = Strength.sentence;
    }
    if (at <= spanStart) {
      // Two rules fired at the same place (". \n\n"): keep the stronger one.
      if (pending !== undefined && pending.end === at && strength > pending.strength) pending.strength = strength;
      continue;
    }
    if (pending !== undefined) yield pending;
    pending = { start: spanStart, end: at, strength };
    spanStart = at;
  }
  if (pending !== undefined) yield pending;
  if (to > spanStart) yield { start: spanStart, end: to, strength: endStrength };
}

/** Splits `[from, to)` at whitespace, lazily (a sentence can be megabytes without a terminator). */
export function* wordSpans(text: string, from: number, to: number, endStrength: number): Generator<Span, void> {
  let spanStart = from;
  let index = from;
  while (index < to) {
    while (index < to && isSpace(text.charCodeAt(index))) index++;
    while (index < to && !isSpace(text.charCodeAt(index))) index++;
    if (index < to) {
      yield { start: spanStart, end: index, strength: Strength.word };
      spanStart = index;
    }
  }
  if (to > spanStart) yield { start: spanStart, end: to, strength: endStrength };
}

/** True when cutting before `index` would split a surrogate pair, a combining sequence or an emoji. */
export function insideCluster(text: string, index: number): boolean {
  if (index <= 0 || index >= text.length) return false;
  const code = text.charCodeAt(index);
  if (code >= 0xdc00 && code <= 0xdfff) return true;
  const previous = text.charCodeAt(index - 1);
  if (previous === 0x200d) return true;
  if (code === 0x200d || (code >= 0xfe00 && code <= 0xfe0f)) return true;
  const point = text.codePointAt(index)!;
  if (point >= 0x1f3fb && point <= 0x1f3ff) return true;
  return /\p{M}/u.test(String.fromCodePoint(point));
}
