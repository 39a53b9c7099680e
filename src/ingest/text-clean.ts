// C0 controls except tab and line feed, DEL, C1 controls, and the byte-order mark. Zero-width
// joiners stay: emoji sequences need them.
// eslint-disable-next-line no-control-regex -- matching control characters is the point: they are removed from text
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\ufeff]/g;
// Space-like characters other than tab, which loaders use between spreadsheet cells.
const SPACE_RUN = /[ \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+/g;

/**
 * Normalises extracted text before chunking: one newline convention, no control characters, single
 * spaces (indentation included), at most one blank line between paragraphs, so "\n\n" always means a
 * paragraph break, no spaces at either end of a line, trimmed.
 */
export function cleanText(text: string): string {
  return cleanPiece(text).trim();
}

/** Characters cleaned between two pause points of {@link cleanTextYielding}: about a millisecond of regex work. */
const CLEAN_SLICE_CHARS = 64 * 1024;

/**
 * {@link cleanText} in slices, with a pause point between them (`pause` decides whether to hand
 * the event loop back): seven regex passes over a 20 MB text were one turn of a second or more. Slices are cut between two characters that no rule
 * of cleanText matches (every rule matches only whitespace and control characters), so each slice
 * cleans exactly as it would inside the whole text. Same result as `cleanText(text)`.
 */
export async function cleanTextYielding(text: string, pause: () => Promise<void>): Promise<string> {
  if (text.length <= CLEAN_SLICE_CHARS) return cleanText(text);
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + CLEAN_SLICE_CHARS);
    while (end < text.length && !(isPlain(text.charCodeAt(end - 1)) && isPlain(text.charCodeAt(end)))) end++;
    pieces.push(cleanPiece(text.slice(start, end)));
    start = end;
    await pause();
  }
  return pieces.join('').trim();
}

/** cleanText without the final trim, which only applies at the ends of the whole text. */
function cleanPiece(text: string): string {
  return (
    text
      .replace(/\r\n?|[\u2028\u0085]/g, '\n')
      // Form feeds separate pages in pdftotext output; paragraph separators are what they say.
      .replace(/[\f\u2029]/g, '\n\n')
      .replace(CONTROL, '')
      .replace(SPACE_RUN, ' ')
      // Only from the start of a run: tried at every character of a run of tabs with no line break
      // after it, `[ \t]+\n` was quadratic in the run (and a slice grows to hold a whole run).
      .replace(/(?<![ \t])[ \t]+\n/g, '\n')
      .replace(/\n /g, '\n')
      .replace(/\n{3,}/g, '\n\n')
  );
}

/** A character no rule of cleanText can match or join to: not whitespace, not a control, not a surrogate. */
function isPlain(code: number): boolean {
  if (code <= 0x20 || (code >= 0x7f && code <= 0xa0)) return false;
  if (code >= 0xd800 && code <= 0xdfff) return false;
  return !/[\s\ufeff\u2028\u2029\u0085]/.test(String.fromCharCode(code));
}
