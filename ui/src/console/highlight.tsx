import { useState } from 'preact/hooks';

/**
 * Highlighting of a query's words in untrusted document text. The text is only ever split into
 * strings that Preact renders as text nodes, with `<mark>` elements around the hits: no markup
 * from the document reaches the page as HTML.
 */

/** A piece of text, marked when it is one of the query's words. */
interface Segment {
  text: string;
  hit: boolean;
}

/** The query's words worth marking (two characters or more), longest first so the longest wins. */
export function queryWords(query: string): string[] {
  const words = query
    .toLocaleLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length >= 2);
  return [...new Set(words)].sort((a, b) => b.length - a.length);
}

/** Splits `text` into marked and plain segments (case-insensitive, by code unit position). */
function segments(text: string, words: readonly string[]): Segment[] {
  if (words.length === 0 || text === '') return [{ text, hit: false }];
  const lower = text.toLocaleLowerCase();
  // toLocaleLowerCase can change the length of a few characters; then marks would be misplaced.
  if (lower.length !== text.length) return [{ text, hit: false }];
  const out: Segment[] = [];
  let plainFrom = 0;
  let at = 0;
  while (at < text.length) {
    const word = words.find((candidate) => lower.startsWith(candidate, at));
    if (word) {
      if (at > plainFrom) out.push({ text: text.slice(plainFrom, at), hit: false });
      out.push({ text: text.slice(at, at + word.length), hit: true });
      at += word.length;
      plainFrom = at;
    } else at++;
  }
  if (plainFrom < text.length) out.push({ text: text.slice(plainFrom), hit: false });
  return out;
}

/**
 * The part of `text` around its first hit, at most about `size` characters, cut at spaces, with
 * whether anything was left out. Without a hit, the beginning.
 */
function snippetOf(text: string, words: readonly string[], size = 280): { text: string; cut: boolean } {
  if (text.length <= size) return { text, cut: false };
  const lower = text.toLocaleLowerCase();
  const hits = words.map((word) => lower.indexOf(word)).filter((index) => index >= 0);
  const first = hits.length > 0 ? Math.min(...hits) : 0;
  let start = Math.max(0, first - Math.floor(size / 3));
  let end = Math.min(text.length, start + size);
  start = Math.max(0, end - size);
  if (start > 0) {
    const space = text.indexOf(' ', start);
    if (space !== -1 && space < first) start = space + 1;
  }
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > Math.max(start, first)) end = space;
  }
  return { text: `${start > 0 ? '… ' : ''}${text.slice(start, end)}${end < text.length ? ' …' : ''}`, cut: true };
}

function Highlighted({ text, words }: { text: string; words: readonly string[] }) {
  return <>{segments(text, words).map((segment, index) => (segment.hit ? <mark key={index}>{segment.text}</mark> : segment.text))}</>;
}

/** A snippet around the hits, with a button that shows the whole text. */
export function Snippet({ text, words, label }: { text: string; words: readonly string[]; label: string }) {
  const [whole, setWhole] = useState(false);
  const snippet = snippetOf(text, words);
  return (
    <>
      <p class="fragment-text">
        <Highlighted text={whole ? text : snippet.text} words={words} />
      </p>
      {snippet.cut ? (
        <button
          type="button"
          class="button small link"
          aria-expanded={whole}
          onClick={() => setWhole(!whole)}
          aria-label={`${whole ? 'Show less of' : 'Show all of'} ${label}`}
        >
          {whole ? 'Show less' : 'Show all'}
        </button>
      ) : null}
    </>
  );
}
