import type { ComponentChildren, VNode } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Markdown, safeHref } from './markdown.js';
import type { SourceEntry, SourcePassage } from './stream.js';

/**
 * An answer with its sources: each `[n]` is a link that opens source n (`sources[n - 1]`) and
 * highlights the passage it quotes. Everything is drawn as Preact text nodes, never HTML: the
 * answer (model output) and the passages (document text) are untrusted.
 */
export function CitedAnswer({ text, sources }: { text: string; sources: SourceEntry[] }): VNode {
  const [shown, setShown] = useState<{ source: number; quote: string } | null>(null);
  const quotes = quotesOf(text);
  let occurrence = 0;
  const cite = (n: number): ComponentChildren => {
    const quote = quotes[occurrence++] ?? '';
    if (n < 1 || n > sources.length) return `[${n}]`;
    return (
      <a
        href={`#source-${n}`}
        class="cite"
        data-cite={n}
        aria-label={`Source ${n}: ${sources[n - 1]!.datasource_name || 'Untitled'}`}
        onClick={(event) => {
          event.preventDefault();
          setShown({ source: n, quote });
        }}
      >
        [{n}]
      </a>
    );
  };
  return (
    <>
      <Markdown text={text} cite={cite} />
      {sources.length > 0 ? <Sources sources={sources} shown={shown} /> : null}
    </>
  );
}

function Sources({ sources, shown }: { sources: SourceEntry[]; shown: { source: number; quote: string } | null }) {
  const opened = useRef<HTMLDetailsElement | null>(null);
  useEffect(() => {
    opened.current?.scrollIntoView({ block: 'nearest' });
    opened.current?.querySelector<HTMLElement>('summary')?.focus();
  }, [shown]);
  return (
    <div class="sources">
      <p class="sources-title">Sources</p>
      <ol>
        {sources.map((source, index) => {
          const number = index + 1;
          const isShown = shown?.source === number;
          const href = source.source_url ? safeHref(source.source_url) : null;
          const passages = passagesOf(source);
          const highlighted = isShown ? passageFor(passages, shown.quote) : -1;
          return (
            <li key={`${number}-${source.chunk_id}`} data-source={number}>
              <details open={isShown || undefined} ref={isShown ? opened : undefined}>
                <summary>
                  {source.datasource_name || 'Untitled'}
                  {pagesLabel(passages)}
                </summary>
                {passages.map((passage, i) => (
                  <blockquote key={passage.chunk_id} class={i === highlighted ? 'fragment highlighted' : 'fragment'} data-passage={i + 1}>
                    {passage.page_number === null || passages.length < 2 ? null : (
                      <span class="fragment-page">Page {passage.page_number}</span>
                    )}
                    {i === highlighted ? withMark(passage.text, shown!.quote) : passage.text}
                  </blockquote>
                ))}
                {href ? (
                  <a href={href} target="_blank" rel="noopener noreferrer nofollow">
                    Open the source
                  </a>
                ) : null}
              </details>
            </li>
          );
        })}
      </ol>
    </div>
  );
}

function passagesOf(source: SourceEntry): SourcePassage[] {
  return source.passages?.length
    ? source.passages
    : [{ chunk_id: source.chunk_id, page_number: source.page_number, text: source.text, score: source.score }];
}

function pagesLabel(passages: readonly SourcePassage[]): string {
  const pages = [...new Set(passages.map((passage) => passage.page_number).filter((page): page is number => page !== null))].sort(
    (a, b) => a - b,
  );
  if (pages.length === 0) return '';
  return pages.length === 1 ? ` (page ${pages[0]})` : ` (pages ${pages.join(', ')})`;
}

/** The text each citation follows, back to the previous citation: what it vouches for. */
function quotesOf(answer: string): string[] {
  const quotes: string[] = [];
  let last = 0;
  for (const match of answer.matchAll(/\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\](?!\()/g)) {
    const quote = answer
      .slice(last, match.index)
      .replace(/[*_`#>]/g, '')
      .trim();
    for (let i = match[1]!.split(',').length; i > 0; i--) quotes.push(quote);
    last = (match.index ?? 0) + match[0].length;
  }
  return quotes;
}

/** Index of the passage that holds the quote; the best passage (0) when none does (a paraphrase). */
function passageFor(passages: readonly SourcePassage[], quote: string): number {
  const found = passages.findIndex((passage) => findQuote(passage.text, quote) !== null);
  return found === -1 ? 0 : found;
}

/**
 * Where `quote` sits in `text`, matching across any whitespace and the document's own footnote
 * marks ("Xenix,[22] but"), which quotes leave out.
 */
function findQuote(text: string, quote: string): [number, number] | null {
  const words = quote.split(/\s+/).filter(Boolean);
  if (words.length === 0) return null;
  const escaped = words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const match = new RegExp(escaped.join('(?:\\s*\\[\\d{1,4}\\])*\\s+')).exec(text);
  return match ? [match.index, match.index + match[0].length] : null;
}

function withMark(text: string, quote: string): ComponentChildren {
  const at = findQuote(text, quote);
  if (!at) return text;
  return (
    <>
      {text.slice(0, at[0])}
      <mark class="quote">{text.slice(at[0], at[1])}</mark>
      {text.slice(at[1])}
    </>
  );
}
