/**
 * Linear-time matching of `*` wildcard patterns (robots.txt rules, crawl include/exclude globs).
 *
 * A pattern is its literal segments between `*`s. Because `*` takes any run of characters, taking
 * each middle segment at its leftmost occurrence after the previous one never loses a match, so one
 * left-to-right pass decides it: the first segment is compared at the start (when anchored), the
 * last at the end (when anchored), and each segment in between is searched with Knuth-Morris-Pratt
 * from where the previous one ended. The searched stretches do not overlap, so a match costs at
 * most about 2 × (text length) + (pattern length) steps, whatever the pattern: no backtracking
 * regular expression, whose cost grows exponentially with the number of `*`s, is ever built.
 */

export interface WildcardPattern {
  /** Literal pieces between the `*`s, in order (empty ones dropped, except a lone empty pattern). */
  readonly segments: readonly string[];
  /** The first segment must sit at the start of the text (no leading `*`). */
  readonly anchoredStart: boolean;
  /** The last segment must end the text (no trailing `*`, or a robots.txt `$`). */
  readonly anchoredEnd: boolean;
  /** KMP failure tables, one per segment, built when a segment is first searched for. */
  readonly tables: Array<Int32Array | undefined>;
}

/** Counts the character comparisons of the matches it is passed to; `limit` stops them early. */
export interface StepCounter {
  steps: number;
  /** Past this many steps a match gives up and reports `undefined`. */
  limit: number;
}

function failureTable(segment: string): Int32Array {
  const table = new Int32Array(segment.length);
  let k = 0;
  for (let i = 1; i < segment.length; i++) {
    const code = segment.charCodeAt(i);
    while (k > 0 && code !== segment.charCodeAt(k)) k = table[k - 1]!;
    if (code === segment.charCodeAt(k)) k++;
    table[i] = k;
  }
  return table;
}

/**
 * `*` is the only special character of `source`; `anchoredStart` / `anchoredEnd` say whether the
 * pattern is tied to the start and end of the text (a glob is tied to both, a robots.txt rule to
 * the start, and to the end only with `$`).
 */
export function compileWildcard(source: string, anchors: { start: boolean; end: boolean }): WildcardPattern {
  const pieces = source.split('*');
  // A pattern that starts (ends) with `*` is free at that end; the empty pattern is not.
  const anchoredStart = anchors.start && (pieces[0] !== '' || pieces.length === 1);
  const anchoredEnd = anchors.end && (pieces[pieces.length - 1] !== '' || pieces.length === 1);
  const segments = pieces.filter((piece) => piece !== '');
  return { segments, anchoredStart, anchoredEnd, tables: segments.map(() => undefined) };
}

/** Index just past the leftmost occurrence of `segment` in text[from, to), or -1. */
function search(text: string, from: number, to: number, segment: string, table: Int32Array, counter: StepCounter): number {
  let k = 0;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    counter.steps++;
    while (k > 0 && code !== segment.charCodeAt(k)) {
      k = table[k - 1]!;
      counter.steps++;
    }
    if (code === segment.charCodeAt(k)) k++;
    if (k === segment.length) return i + 1;
  }
  return -1;
}

/** True when text[at, at + segment.length) is `segment`. */
function sitsAt(text: string, at: number, segment: string, counter: StepCounter): boolean {
  if (at < 0 || at + segment.length > text.length) return false;
  for (let i = 0; i < segment.length; i++) {
    counter.steps++;
    if (text.charCodeAt(at + i) !== segment.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * Whether `pattern` matches `text`; `undefined` when `counter` ran past its limit first (the caller
 * decides what an undecided match means).
 */
export function matchWildcard(pattern: WildcardPattern, text: string, counter: StepCounter): boolean | undefined {
  const { segments, tables, anchoredStart, anchoredEnd } = pattern;
  if (segments.length === 0) return anchoredStart && anchoredEnd ? text.length === 0 : true;
  let first = 0;
  let last = segments.length - 1;
  let from = 0;
  let to = text.length;
  if (anchoredStart) {
    if (!sitsAt(text, 0, segments[0]!, counter)) return false;
    from = segments[0]!.length;
    first = 1;
  }
  if (anchoredEnd && last >= first) {
    const tail = segments[last]!;
    if (!sitsAt(text, text.length - tail.length, tail, counter) || text.length - tail.length < from) return false;
    to = text.length - tail.length;
    last--;
  } else if (anchoredEnd && from !== text.length) {
    return false; // one segment anchored at both ends: the whole text
  }
  for (let i = first; i <= last; i++) {
    if (counter.steps > counter.limit) return undefined;
    const segment = segments[i]!;
    const table = (tables[i] ??= failureTable(segment));
    const end = search(text, from, to, segment, table, counter);
    if (end < 0) return false;
    from = end;
  }
  return counter.steps > counter.limit ? undefined : true;
}
