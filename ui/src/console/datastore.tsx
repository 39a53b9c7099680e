import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api, Datasource, Datastore, DatastoreStats } from '../api.js';
import { ChunkViewer, Pager } from './chunks.js';
import { ConfirmDialog, ErrorNote, Link, StatusBadge, formatBytes, formatDate } from './shared.js';
import { SearchPanel } from './search.js';
import { UploadPanel } from './upload.js';
import { CrawlCounters, CrawlDetails } from './crawl.js';

const POLL_MS = 1000;
const PAGE_SIZE = 50;

/** One datastore: totals, its datasources a page at a time with live status, adding files and web pages, chunks, search. */
export function DatastorePage({ api, uiBase, id, maxFileBytes }: { api: Api; uiBase: string; id: string; maxFileBytes: number }) {
  const [datastore, setDatastore] = useState<Datastore | null>(null);
  const [stats, setStats] = useState<DatastoreStats | null>(null);
  const [datasources, setDatasources] = useState<Datasource[] | null>(null);
  const [pagesOf, setPagesOf] = useState<Record<string, Datasource[]>>({});
  const [total, setTotal] = useState(0);
  const [offset, setOffset] = useState(0);
  const [filter, setFilter] = useState('');
  const [nameFilter, setNameFilter] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [deleting, setDeleting] = useState<Datasource | null>(null);
  const [viewing, setViewing] = useState<Datasource | null>(null);
  const timer = useRef<number | undefined>(undefined);
  const shown = useRef({ offset, nameFilter });
  shown.current = { offset, nameFilter };

  async function refresh() {
    const wanted = shown.current;
    try {
      // Top-level datasources a page at a time; a site's pages are read for the sites on the page.
      const page = await api.pageDatasources(id, {
        offset: wanted.offset,
        limit: PAGE_SIZE,
        groupId: 'none',
        ...(wanted.nameFilter ? { name: wanted.nameFilter } : {}),
      });
      const sites = page.datasources.filter((datasource) => datasource.type === 'web_site');
      const children = await Promise.all(sites.map((site) => api.pageDatasources(id, { offset: 0, limit: 200, groupId: site.id })));
      // Another page or filter was asked for meanwhile: its own refresh shows it.
      if (shown.current.offset !== wanted.offset || shown.current.nameFilter !== wanted.nameFilter) return;
      setDatasources(page.datasources);
      setTotal(page.total);
      setPagesOf(Object.fromEntries(sites.map((site, index) => [site.id, children[index]?.datasources ?? []])));
      api.getDatastoreStats(id).then(setStats, setError);
      // Poll while something is syncing: pending -> running -> synched (or error) shows as it happens.
      window.clearTimeout(timer.current);
      const listed = [...page.datasources, ...children.flatMap((child) => child.datasources)];
      if (listed.some((datasource) => datasource.status === 'pending' || datasource.status === 'running')) {
        timer.current = window.setTimeout(() => void refresh(), POLL_MS);
      }
    } catch (failure) {
      setError(failure);
    }
  }

  useEffect(() => {
    api.getDatastore(id).then((found) => {
      setDatastore(found);
      performance.mark('ragdesk:interactive');
    }, setError);
    return () => window.clearTimeout(timer.current);
  }, [api, id]);

  useEffect(() => {
    void refresh();
  }, [api, id, offset, nameFilter]);

  async function act(action: () => Promise<unknown>) {
    setError(null);
    try {
      await action();
    } catch (failure) {
      setError(failure);
    }
    await refresh();
  }

  const rows = datasources ?? [];
  return (
    <main id="main" class="page">
      <p class="crumbs">
        <Link href={`${uiBase}datastores`}>Datastores</Link> /
      </p>
      <h1>{datastore?.name ?? 'Datastore'}</h1>
      {datastore?.description ? <p class="muted">{datastore.description}</p> : null}
      <ErrorNote error={error} />
      {stats ? <Totals stats={stats} /> : null}
      <div class="columns">
        <UploadPanel api={api} datastoreId={id} maxFileBytes={maxFileBytes} onAdded={() => void refresh()} />
      </div>
      <section aria-labelledby="datasources-title" class="card">
        <h2 id="datasources-title">Datasources</h2>
        <form
          class="row wrap"
          onSubmit={(event) => {
            event.preventDefault();
            setOffset(0);
            setNameFilter(filter.trim());
          }}
        >
          <div class="field grow">
            <label for="datasource-filter">Filter by name</label>
            <input id="datasource-filter" type="search" value={filter} onInput={(e) => setFilter((e.target as HTMLInputElement).value)} />
          </div>
          <button type="submit" class="button">
            Filter
          </button>
        </form>
        {datasources === null ? (
          <p class="muted">Loading…</p>
        ) : rows.length === 0 ? (
          <p class="muted">
            {nameFilter ? `No datasource name contains “${nameFilter}”.` : 'Nothing here yet: drop files above or add a web page.'}
          </p>
        ) : (
          <>
            <p class="muted small" aria-live="polite">
              Datasources {offset + 1}–{offset + rows.length} of {total}
              {nameFilter ? ` named like “${nameFilter}”` : ''}
            </p>
            <div class="table-wrap">
              <table class="table">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Type</th>
                    <th scope="col">Status</th>
                    <th scope="col" class="num">
                      Chunks
                    </th>
                    <th scope="col" class="num">
                      Tokens
                    </th>
                    <th scope="col">Last sync</th>
                    <th scope="col">
                      <span class="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((datasource) => (
                    <DatasourceRow
                      key={datasource.id}
                      datasource={datasource}
                      pages={pagesOf[datasource.id] ?? []}
                      onSync={() => void act(() => api.syncDatasource(datasource.id))}
                      onDelete={() => setDeleting(datasource)}
                      onChunks={() => setViewing(datasource)}
                      uiBase={uiBase}
                      onSchedule={(every) => void act(() => api.setRefresh(datasource.id, every ? { every } : null))}
                    />
                  ))}
                </tbody>
              </table>
            </div>
            <Pager offset={offset} size={PAGE_SIZE} total={total} label="Datasource pages" onPage={setOffset} />
          </>
        )}
      </section>
      {viewing ? <ChunkViewer key={viewing.id} api={api} datasource={viewing} onClose={() => setViewing(null)} /> : null}
      <SearchPanel api={api} datastoreId={id} datasources={rows} />
      {deleting ? (
        <ConfirmDialog
          title={`Delete ${deleting.name}?`}
          message="Its fragments leave the datastore (and the pages of a site with it)."
          confirm="Delete datasource"
          onCancel={() => setDeleting(null)}
          onConfirm={() => {
            const target = deleting;
            setDeleting(null);
            if (viewing?.id === target.id) setViewing(null);
            void act(() => api.deleteDatasource(target.id));
          }}
        />
      ) : null}
    </main>
  );
}

/** What the datastore holds in all (every page of the list). */
function Totals({ stats }: { stats: DatastoreStats }) {
  const figures: [string, string][] = [
    ['Documents', stats.documents.toLocaleString()],
    ['Chunks', stats.chunks.toLocaleString()],
    ['Tokens', stats.tokens.toLocaleString()],
    ['Stored files', formatBytes(stats.fileBytes)],
  ];
  return (
    <section class="card" aria-labelledby="totals-title">
      <h2 id="totals-title">Totals</h2>
      <dl class="totals">
        {figures.map(([name, value]) => (
          <div key={name} data-total={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function DatasourceRow({
  datasource,
  pages,
  uiBase,
  onSync,
  onDelete,
  onChunks,
  onSchedule,
}: {
  datasource: Datasource;
  pages: Datasource[];
  uiBase: string;
  onSync: () => void;
  onDelete: () => void;
  onChunks: () => void;
  onSchedule: (every: string) => void;
}) {
  const url =
    typeof datasource.config.source_url === 'string'
      ? datasource.config.source_url
      : typeof datasource.config.sitemap === 'string'
        ? datasource.config.sitemap
        : null;
  const busy = datasource.status === 'pending' || datasource.status === 'running';
  const done = pages.filter((page) => page.status === 'synched' || page.status === 'error').length;
  // A site's own counts are its pages' (kept by the server as pages are stored, all of them, not
  // only the first 200 read here): adding the pages again would count them twice.
  const chunks =
    datasource.type === 'web_site' ? datasource.nbChunks : datasource.nbChunks + pages.reduce((sum, page) => sum + page.nbChunks, 0);
  const tokens =
    datasource.type === 'web_site' ? datasource.nbTokens : datasource.nbTokens + pages.reduce((sum, page) => sum + page.nbTokens, 0);
  return (
    <tr data-datasource={datasource.name}>
      <td>
        <span class="title">{datasource.name}</span>
        {url ? <span class="muted small block">{url}</span> : null}
        {datasource.error ? <span class="error small block">{datasource.error}</span> : null}
        <CrawlDetails datasource={datasource} uiBase={uiBase} onSchedule={onSchedule} />
      </td>
      <td data-label="Type">{datasource.type.replace('_', ' ')}</td>
      <td data-label="Status">
        <StatusBadge status={datasource.status} />
        {datasource.crawl ? (
          <CrawlCounters crawl={datasource.crawl} />
        ) : pages.length > 0 ? (
          <span class="muted small block">
            {done} / {pages.length} pages
          </span>
        ) : null}
        {busy && pages.length > 0 ? <progress max={pages.length} value={done} aria-label="Pages synched" /> : null}
      </td>
      <td class="num" data-label="Chunks" data-chunks={chunks}>
        {chunks}
      </td>
      <td class="num" data-label="Tokens">
        {tokens}
      </td>
      <td data-label="Last sync">{formatDate(datasource.lastSynch)}</td>
      <td class="actions">
        {datasource.type !== 'web_site' ? (
          <button type="button" class="button small" onClick={onChunks} aria-label={`Chunks of ${datasource.name}`}>
            Chunks
          </button>
        ) : null}
        {datasource.type !== 'text' ? (
          <button type="button" class="button small" onClick={onSync} disabled={busy} aria-label={`Re-sync ${datasource.name}`}>
            Re-sync
          </button>
        ) : null}
        <button type="button" class="button small danger" onClick={onDelete} aria-label={`Delete ${datasource.name}`}>
          Delete
        </button>
      </td>
    </tr>
  );
}
