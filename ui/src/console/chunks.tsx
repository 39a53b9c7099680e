import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api, ChunkPage, Datasource } from '../api.js';
import { ErrorNote } from './shared.js';
import { Snippet, queryWords } from './highlight.js';

const PAGE_SIZE = 20;

/** The chunks of one datasource, a page at a time, with a text filter (the route's `q`). */
export function ChunkViewer({ api, datasource, onClose }: { api: Api; datasource: Datasource; onClose: () => void }) {
  const [offset, setOffset] = useState(0);
  const [filter, setFilter] = useState('');
  const [applied, setApplied] = useState('');
  const [page, setPage] = useState<ChunkPage | null>(null);
  const [error, setError] = useState<unknown>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    heading.current?.focus();
  }, [datasource.id]);

  useEffect(() => {
    let current = true;
    setError(null);
    api.listChunks(datasource.id, { offset, limit: PAGE_SIZE, ...(applied ? { q: applied } : {}) }).then(
      (found) => current && setPage(found),
      (failure: unknown) => current && setError(failure),
    );
    return () => {
      current = false;
    };
  }, [api, datasource.id, offset, applied]);

  const words = queryWords(applied);
  const last = page ? Math.min(page.offset + page.chunks.length, page.total) : 0;
  return (
    <section class="card chunk-viewer" aria-labelledby="chunks-title">
      <div class="row between">
        <h2 id="chunks-title" ref={heading} tabIndex={-1}>
          Chunks of {datasource.name || 'untitled'}
        </h2>
        <button type="button" class="button small" onClick={onClose}>
          Close chunks
        </button>
      </div>
      <form
        class="row wrap"
        onSubmit={(event) => {
          event.preventDefault();
          setOffset(0);
          setApplied(filter.trim());
        }}
      >
        <div class="field grow">
          <label for="chunk-filter">Find in chunks</label>
          <input id="chunk-filter" type="search" value={filter} onInput={(e) => setFilter((e.target as HTMLInputElement).value)} />
        </div>
        <button type="submit" class="button">
          Find
        </button>
      </form>
      <ErrorNote error={error} />
      {page === null ? (
        <p class="muted">Loading…</p>
      ) : (
        <>
          <p class="muted small" aria-live="polite">
            {page.total === 0
              ? applied
                ? `No chunk contains “${applied}”.`
                : 'No chunks.'
              : `Chunks ${page.offset + 1}–${last} of ${page.total}${applied ? ` containing “${applied}”` : ''}`}
          </p>
          <ol class="chunks" aria-label="Chunks">
            {page.chunks.map((chunk) => (
              <li key={chunk.id} class="chunk" data-chunk-position={chunk.position}>
                <p class="small muted">
                  #{chunk.position + 1} · {chunk.token_count} tokens
                  {chunk.page_number === null ? '' : ` · page ${chunk.page_number}`}
                  {chunk.custom_id ? ` · custom_id ${chunk.custom_id}` : ''} · <code class="chunk-id">{chunk.id.slice(0, 12)}</code>
                </p>
                <Snippet text={chunk.text} words={words} label={`chunk ${chunk.position + 1}`} />
              </li>
            ))}
          </ol>
          <Pager offset={page.offset} size={PAGE_SIZE} total={page.total} label="Chunk pages" onPage={setOffset} />
        </>
      )}
    </section>
  );
}

/** Previous / next over an offset-paged list. */
export function Pager({
  offset,
  size,
  total,
  label,
  onPage,
}: {
  offset: number;
  size: number;
  total: number;
  label: string;
  onPage: (offset: number) => void;
}) {
  if (total <= size) return null;
  const page = Math.floor(offset / size) + 1;
  const pages = Math.ceil(total / size);
  return (
    <nav class="row pager" aria-label={label}>
      <button type="button" class="button small" disabled={offset === 0} onClick={() => onPage(Math.max(0, offset - size))}>
        Previous
      </button>
      <span class="small" aria-current="page">
        Page {page} of {pages}
      </span>
      <button type="button" class="button small" disabled={offset + size >= total} onClick={() => onPage(offset + size)}>
        Next
      </button>
    </nav>
  );
}
