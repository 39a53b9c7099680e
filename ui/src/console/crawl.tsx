import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api, CrawlInfo, CrawlPageList, Datasource } from '../api.js';
import { ErrorNote, Link, StatusBadge, formatDate } from './shared.js';

const SCHEDULES: Array<{ value: string; label: string }> = [
  { value: '', label: 'Off' },
  { value: 'hourly', label: 'Hourly' },
  { value: 'daily', label: 'Daily' },
  { value: 'weekly', label: 'Weekly' },
];

/** The counters of a crawl, one line: they move while the site syncs (the datastore page polls). */
export function CrawlCounters({ crawl }: { crawl: CrawlInfo }) {
  const skipped = crawl.skipped.robots + crawl.skipped.type + crawl.skipped.limit;
  const skippedTitle = `robots.txt ${crawl.skipped.robots}, type ${crawl.skipped.type}, page limit ${crawl.skipped.limit}`;
  return (
    <span class="muted small block crawl-counters" data-crawl-counters="">
      <span data-count="found">{crawl.found} found</span> · <span data-count="fetched">{crawl.fetched} fetched</span>
      {crawl.unchanged > 0 ? (
        <>
          {' '}
          · <span data-count="unchanged">{crawl.unchanged} unchanged</span>
        </>
      ) : null}
      {' · '}
      <span data-count="skipped" title={skippedTitle}>
        {skipped} skipped
      </span>
      {' · '}
      <span data-count="failed">{crawl.failed} failed</span>
    </span>
  );
}

/** Schedule (editable), the last refresh's result and the next run, with a link to the pages list. */
export function CrawlDetails({
  datasource,
  uiBase,
  onSchedule,
}: {
  datasource: Datasource;
  uiBase: string;
  onSchedule: (every: string) => void;
}) {
  const crawl = datasource.crawl;
  if (!crawl) return null;
  const every = crawl.refresh?.every ?? '';
  const options = SCHEDULES.some((option) => option.value === every)
    ? SCHEDULES
    : [...SCHEDULES, { value: every, label: `Every ${every}` }];
  const result = crawl.lastResult;
  const selectId = `refresh-${datasource.id}`;
  return (
    <span class="small block crawl-details">
      <label for={selectId} class="inline-label">
        Refresh
      </label>{' '}
      <select id={selectId} class="inline-select" value={every} onChange={(event) => onSchedule((event.target as HTMLSelectElement).value)}>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {crawl.nextRefreshAt ? <span class="muted"> · next {formatDate(crawl.nextRefreshAt)}</span> : null}
      {result ? (
        <span class="muted block" data-last-result="">
          Last: {result.changed} changed, {result.added} added, {result.removed} removed, {result.unchanged} unchanged
          {result.failed ? `, ${result.failed} failed` : ''}
        </span>
      ) : null}
      <Link href={`${uiBase}pages/${encodeURIComponent(datasource.id)}`} class="block">
        Pages and errors
      </Link>
    </span>
  );
}

const PAGE_SIZE = 50;
const POLL_MS = 1000;

/** `/pages/{datasourceId}`: every URL of a web datasource's crawl with its status and error. */
export function CrawlPagesPage({ api, uiBase, id }: { api: Api; uiBase: string; id: string }) {
  const [datasource, setDatasource] = useState<Datasource | null>(null);
  const [list, setList] = useState<CrawlPageList | null>(null);
  const [offset, setOffset] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const timer = useRef<number | undefined>(undefined);

  async function load() {
    try {
      const [found, pages] = await Promise.all([api.getDatasource(id), api.listCrawlPages(id, offset, PAGE_SIZE)]);
      setDatasource(found);
      setList(pages);
      window.clearTimeout(timer.current);
      if (found.status === 'pending' || found.status === 'running') timer.current = window.setTimeout(() => void load(), POLL_MS);
    } catch (failure) {
      setError(failure);
    }
  }

  useEffect(() => {
    void load();
    return () => window.clearTimeout(timer.current);
  }, [api, id, offset]);

  return (
    <main id="main" class="page">
      <p class="crumbs">
        <Link href={`${uiBase}datastores`}>Datastores</Link> /{' '}
        {datasource ? <Link href={`${uiBase}datastores/${encodeURIComponent(datasource.datastoreId)}`}>Datastore</Link> : null} /
      </p>
      <h1>Pages of {datasource?.name ?? 'the crawl'}</h1>
      <ErrorNote error={error} />
      {datasource ? (
        <p>
          <StatusBadge status={datasource.status} /> {datasource.crawl ? <CrawlCounters crawl={datasource.crawl} /> : null}
        </p>
      ) : null}
      <section aria-labelledby="pages-title" class="card">
        <h2 id="pages-title">URLs {list ? <span class="muted small">({list.total})</span> : null}</h2>
        {list && list.items.length === 0 ? <p class="muted">No URL yet.</p> : null}
        {list && list.items.length > 0 ? (
          <div class="table-wrap">
            <table class="table">
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Status</th>
                  <th scope="col">Why</th>
                </tr>
              </thead>
              <tbody>
                {list.items.map((page) => (
                  <tr key={page.url} data-page-status={page.status}>
                    <td class="break">{page.url}</td>
                    <td data-label="Status">{page.status}</td>
                    <td data-label="Why">
                      {page.reason ? <span class="block">{page.reason}</span> : null}
                      {page.error ? <span class="error small block">{page.error}</span> : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
        {list && list.total > PAGE_SIZE ? (
          <nav aria-label="Pages of URLs" class="pager">
            <button type="button" class="button small" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
              Previous
            </button>
            <span class="muted small">
              {offset + 1}–{Math.min(offset + PAGE_SIZE, list.total)} of {list.total}
            </span>
            <button
              type="button"
              class="button small"
              disabled={offset + PAGE_SIZE >= list.total}
              onClick={() => setOffset(offset + PAGE_SIZE)}
            >
              Next
            </button>
          </nav>
        ) : null}
      </section>
    </main>
  );
}
