/**
 * Citation markers in answers: `[2]`, `[1, 3]` or `[1][3]`, where n names `sources[n - 1]`. A model
 * may cite a number the answer has no entry for; such numbers are removed (a marker left empty goes
 * with the space before it) so a reader never follows a citation to nothing.
 */

/** `[2]`, `[1, 3]`; not a Markdown link text (`[1](https://…)`), which the negative look-ahead skips. */
const MARKER = /(\s?)\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\](?!\()/g;

/** The longest marker kept back while streaming, waiting for its end; longer text is not a marker. */
const MAX_PENDING = 24;

export interface CitationCheck {
  text: string;
  /** Numbers removed, in order of first appearance, each once. */
  removed: number[];
}

/** Removes the numbers outside `1..count` from every marker of `text`. */
export function checkCitations(text: string, count: number): CitationCheck {
  const removed: number[] = [];
  const checked = text.replace(MARKER, (whole, space: string, list: string) => {
    const numbers = list.split(',').map((part) => Number(part.trim()));
    const kept = numbers.filter((n) => n >= 1 && n <= count);
    for (const n of numbers) if (!kept.includes(n) && !removed.includes(n)) removed.push(n);
    if (kept.length === numbers.length) return whole;
    return kept.length === 0 ? '' : `${space}[${kept.join(', ')}]`;
  });
  return { text: checked, removed };
}

/** The warnings an answer carries when numbers were removed from it (none when `warn` is false). */
export function danglingCitationWarnings(removed: readonly number[], citations: { count: number; warn: boolean }): string[] {
  if (removed.length === 0 || !citations.warn) return [];
  const cited = removed.map((n) => `[${n}]`).join(', ');
  const { count } = citations;
  const what = removed.length === 1 ? 'that citation was' : 'those citations were';
  return [`the answer cited ${cited}, but it has ${count} source${count === 1 ? '' : 's'}; ${what} removed`];
}

/**
 * The same check over a stream of deltas: text that cannot be part of a marker passes at once; a
 * trailing `[`, `[1`, `[1, ` (or the space before it) waits for the next delta, since a marker
 * may be split across deltas. Joined, the output equals `checkCitations` of the joined input.
 */
export class CitationStreamFilter {
  private pending = '';
  private readonly removedNumbers: number[] = [];

  constructor(private readonly count: number) {}

  /** Text safe to emit now (possibly empty). */
  push(delta: string): string {
    const text = this.pending + delta;
    const cut = pendingStart(text);
    this.pending = text.slice(cut);
    return this.check(text.slice(0, cut));
  }

  /** What was held back, checked; call once when the stream ends. */
  end(): string {
    const rest = this.pending;
    this.pending = '';
    return this.check(rest);
  }

  get removed(): readonly number[] {
    return this.removedNumbers;
  }

  private check(text: string): string {
    if (!text) return '';
    const result = checkCitations(text, this.count);
    for (const n of result.removed) if (!this.removedNumbers.includes(n)) this.removedNumbers.push(n);
    return result.text;
  }
}

/**
 * Where the part of `text` that might still become a marker starts: an unclosed `[` followed only
 * by digits, commas and spaces, or a complete marker at the very end (a `(` next would make it a
 * link), each with the one space before it; else a trailing space, which a marker in the next
 * delta would take with it; `text.length` when nothing needs to wait.
 */
function pendingStart(text: string): number {
  const open = text.lastIndexOf('[');
  if (open !== -1 && text.length - open <= MAX_PENDING && /^\[[\d\s,]*\]?$/.test(text.slice(open))) {
    return open > 0 && /\s/.test(text[open - 1] as string) ? open - 1 : open;
  }
  return /\s$/.test(text) ? text.length - 1 : text.length;
}
