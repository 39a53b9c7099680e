// C0 controls except tab and line feed, DEL, C1 controls, and the byte-order mark. Zero-width
// joiners stay: emoji sequences need them.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\ufeff]/g;
// Space-like characters other than tab, which loaders use between spreadsheet cells.
const SPACE_RUN = /[ \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+/g;

/**
 * Normalises extracted text before chunking: one newline convention, no control characters, single
 * spaces (indentation included), at most one blank line between paragraphs, so "\n\n" always means a
 * paragraph break, no spaces at either end of a line, trimmed.
 */
export function cleanText(text: string): string {
  return text
    .replace(/\r\n?|[\u2028\u0085]/g, '\n')
    // Form feeds separate pages in pdftotext output; paragraph separators are what they say.
    .replace(/[\f\u2029]/g, '\n\n')
    .replace(CONTROL, '')
    .replace(SPACE_RUN, ' ')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n /g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
