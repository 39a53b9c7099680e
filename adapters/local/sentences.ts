/** Longest sentence the answerer quotes; longer run-on text is cut at a word and marked `…`. */
const MAX_SENTENCE_CHARS = 600;

// A sentence ends at . ! ? followed by space and a capitalised word or a quote before one. This
// keeps "e.g. this", "3.5 mm" and "(see above)" together, and an identifier or number after a
// full stop stays with the words that introduce it ("the id is below. 314b0a30-..."). An initial
// or a title before a name is no sentence end ("John W. Thompson", "Dr. Chen"); a few other
// abbreviations still split. A sentence may open with an acronym ("… solving. MATH consists of").
const SENTENCE_END =
  /(?<=[.!?])(?<!(?:^|[\s(])(?:\p{Lu}|Mr|Mrs|Ms|Dr|Prof|St|e\.g|i\.e)\.)\s+(?=\p{Lu}\p{Ll}|["'“]\p{Lu}|\p{Lu}{2,}\s+\p{Ll})/u;
/** A list item: a bullet or "1." / "a)" at the start of a line. */
const LIST_ITEM = /^(?:[•▪◦·*+-]|\d{1,3}[.)]|[a-z][.)])\s+/;
/** A preposition or conjunction in lower case opening a line: the line goes on with the one above. */
const CONTINUING_WORD = /^(?:at|with|and|or|of|to|for|in|on|from|by|than|but|nor|including|per)\s/;
/** Most lines of a block of short lines quoted as one record. */
const MAX_RECORD_LINES = 4;
/** A PDF line wrapped at the page width is about this long; shorter lines are rows or headings. */
const WRAPPED_LINE_CHARS = 55;

/** One quotable piece of a passage. */
export interface TextUnit {
  /** The text as the passage has it (whitespace collapsed). */
  text: string;
  /**
   * `row`: a table row or a `key: value` line; `heading`: a short title line or a table's header
   * row, never quoted alone; `record`: a block of two to four short lines between blank lines (a
   * byline with its date, a field's label with its value, an address), quoted whole as well as
   * line by line; `title`: a document's opening heading with the line after it (made by the
   * answerer for a question asking for a title).
   */
  kind: 'sentence' | 'row' | 'heading' | 'record' | 'title';
  /** The heading above it or its table's header row: words that describe it without being in it. */
  context: string;
}

/**
 * The passage as units a person can read alone: prose lines wrapped by a PDF are joined back into
 * paragraphs before splitting at sentence ends (so no sentence is cut at a line, a parenthesis or a
 * hyphenated word), each list item is its own paragraph, table rows and short `key: value` lines
 * are units of their own with their table's header (or the heading above) as context, a line
 * ending in ":" takes the short line after it (the value it introduces), and a block of a few short
 * lines standing alone between blank lines is also one record.
 */
export function splitUnits(text: string): TextUnit[] {
  const units: TextUnit[] = [];
  let heading = '';
  let header = '';
  let paragraph: string[] = [];
  // The lines since the last blank line or table, and the heading above them.
  let run: string[] = [];
  let runHeading = '';
  let runStart = 0;
  let lastHeadingLine = '';
  // The line naming the columns of a table drawn without rules, while its lines follow.
  let columns = '';
  const endRun = () => {
    if (
      run.length >= 2 &&
      run.length <= MAX_RECORD_LINES &&
      run.every((line) => line.length <= WRAPPED_LINE_CHARS && !line.startsWith('|'))
    ) {
      // Before its lines: the unit above it is then what precedes the block (a title above a byline).
      units.splice(runStart, 0, { text: run.join(' '), kind: 'record', context: runHeading });
    }
    run = [];
  };
  const flush = () => {
    if (paragraph.length === 0) return;
    const joined = joinLines(paragraph);
    const paragraph0 = paragraph[0] as string;
    paragraph = [];
    if (isHeading(joined)) {
      // Two headings in a row describe together what follows ("REWARDS MEMBER", then "Sarah Mitchell").
      const last = units[units.length - 1];
      heading = last?.kind === 'heading' && last.text === lastHeadingLine ? `${lastHeadingLine} ${joined}` : joined;
      lastHeadingLine = joined;
      units.push({ text: joined, kind: 'heading', context: '' });
      columns = joined;
      return;
    }
    lastHeadingLine = '';
    // A line of a table the PDF drew without rules is a row, read with the column names above it.
    const tableLine = isTableLine(paragraph0);
    const kind = tableLine || isRow(joined) ? 'row' : 'sentence';
    const parts = kind === 'row' ? [joined] : joined.split(SENTENCE_END);
    const context = tableLine ? `${columns} ${heading}`.trim() : heading;
    // The column names are the table's header, never quoted alone.
    const above = units[units.length - 1];
    if (tableLine && columns !== '' && above?.text === columns && above.kind === 'sentence') above.kind = 'heading';
    for (const part of parts) {
      const sentence = part.trim();
      if (sentence.length >= 2) units.push({ text: cut(sentence), kind, context });
    }
    // Column names: a line of words alone, no value and no sentence end, above the table's lines.
    if (!tableLine) columns = isColumnNames(joined) ? joined : '';
  };
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\s+/g, ' ').trim();
    // A rule drawn with characters ("=====", "-----") separates like a blank line; it titles nothing.
    if (line === '' || (!line.startsWith('|') && !/[\p{L}\p{N}]/u.test(line))) {
      flush();
      endRun();
      header = '';
      columns = '';
      continue;
    }
    if (line.startsWith('|')) {
      flush();
      endRun();
      if (/^\|[\s|:-]*$/.test(line)) continue;
      if (header === '') {
        header = line;
        units.push({ text: line, kind: 'heading', context: heading });
      } else {
        units.push({ text: line, kind: 'row', context: `${header} ${heading}`.trim() });
      }
      continue;
    }
    header = '';
    if (run.length === 0) {
      runHeading = heading;
      runStart = units.length;
    }
    run.push(line);
    const previous = paragraph[paragraph.length - 1];
    if (previous !== undefined && !continues(previous, line)) flush();
    paragraph.push(line);
  }
  flush();
  endRun();
  return units;
}

/** Whether `line` continues the paragraph whose last line is `previous`. */
function continues(previous: string, line: string): boolean {
  if (LIST_ITEM.test(line) || isTableLine(line)) return false;
  // A table's line takes only a note in brackets under it ("(Runtime: 116 min); …").
  if (isTableLine(previous)) return line.startsWith('(');
  // A line introducing a value ("…for the following project:") takes the short line after it.
  if (/:$/.test(previous)) return line.length <= WRAPPED_LINE_CHARS && !/:/.test(line);
  if (/[.!?]["')\]]?$/.test(previous)) return previous.length >= WRAPPED_LINE_CHARS && !isShortLine(line);
  // A short line may go on under another when it opens with a word that cannot start one ("at
  // 5,000 pts (1,753 to go)" under "Next Reward: $50 gift card").
  if (CONTINUING_WORD.test(line)) return true;
  if (/^[\p{Ll}\d(,;]/u.test(line)) return !isShortLine(previous) || /[,;(-]$/.test(previous);
  return previous.length >= WRAPPED_LINE_CHARS;
}

/**
 * A line of a table drawn without rules: no sentence end and three or more values holding digits
 * ("3 SCR-1 12/26/24 12/31/24 New Year Mystery 4DX 9:30 PM Daily 12 $300 PM $3,600").
 */
function isTableLine(line: string): boolean {
  if (/[.!?]$/.test(line) || /^\p{Ll}/u.test(line)) return false;
  const words = line.split(' ');
  const values = words.filter((word) => /\d/.test(word)).length;
  // Prose citing a few numbers ("(enc=6, dec=6, heads=8) with PubTabNet alone") is mostly words.
  return values >= 3 && values * 5 >= words.length * 2;
}

/** A line naming columns: mostly capitalised words, no value, no sentence end. */
function isColumnNames(line: string): boolean {
  if (/\d/.test(line) || /[.!?:,;]$/.test(line)) return false;
  const words = line.split(' ').filter((word) => /\p{L}/u.test(word));
  return words.length > 0 && words.filter((word) => /^\p{Lu}/u.test(word)).length * 5 >= words.length * 4;
}

function isShortLine(line: string): boolean {
  return line.length < WRAPPED_LINE_CHARS / 2;
}

/**
 * Wrapped lines back into one, meeting at a space (a word hyphenated at a line end keeps its
 * hyphen: the quote stays the passage's own text, found again by collapsing whitespace).
 */
function joinLines(lines: readonly string[]): string {
  return lines.join(' ');
}

/**
 * A title line: a Markdown heading ("## 1910s–1950s"), or a short line of a few words with no
 * sentence end, no value (digits, a colon) and no verb of a statement ("Electronics must be
 * unopened" is a rule, not a title).
 */
function isHeading(text: string): boolean {
  if (MARKDOWN_HEADING.test(text)) return true;
  if (text.length > 60 || /[.!?:;,]$/.test(text) || /\d/.test(text) || text.includes(':')) return false;
  const words = text.split(' ');
  return words.length <= 6 && !LIST_ITEM.test(text) && !words.some((word) => STATEMENT_VERBS.has(word.toLowerCase()));
}

const MARKDOWN_HEADING = /^#{1,6}\s+\S/;

/** Auxiliary and modal verbs: a short line holding one states something. */
const STATEMENT_VERBS = new Set('is are was were be been must should shall will would can cannot may might has have had does'.split(' '));

/** A `key: value` line short enough to be a field of a form, receipt or invoice. */
function isRow(text: string): boolean {
  return text.length <= 80 && !/[.!?]$/.test(text) && (/^[^:]{1,40}:\s*\S/.test(text) || /\d/.test(text));
}

function cut(sentence: string): string {
  if (sentence.length <= MAX_SENTENCE_CHARS) return sentence;
  const space = sentence.lastIndexOf(' ', MAX_SENTENCE_CHARS);
  return `${sentence.slice(0, space > MAX_SENTENCE_CHARS / 2 ? space : MAX_SENTENCE_CHARS)} …`;
}
