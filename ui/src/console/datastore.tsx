import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api, Datasource, Datastore } from '../api.js';
import { ConfirmDialog, ErrorNote, Link, StatusBadge, formatDate } from './shared.js';
import { SearchPanel } from './search.js';
import { UploadPanel } from './upload.js';
import { CrawlCounters, CrawlDetails } from './crawl.js';

const POLL_MS = 1000;

/** One datastore: its datasources with live status, adding files and web pages, search. */
export function DatastorePage({ api, uiBase, id, maxFileBytes }: { api: Api; uiBase: string; id: string; maxFileBytes: number }) {
  const [datastore, setDatastore] = useState<Datastore | null>(null);
  const [datasources, setDatasources] = useState<Datasource[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [deleting, setDeleting] = useState<Datasource | null>(null);
  const timer = useRef<number | undefined>(undefined);

  async function refresh() {
    try {
      const list = await api.listDatasources(id);
      setDatasources(list);
      // Poll while something is syncing: pending -> running -> synched (or error) shows as it happens.
      window.clearTimeout(timer.current);
      if (list.some((datasource) => datasource.status === 'pending' || datasource.status === 'running')) {
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
    void refresh();
    return () => window.clearTimeout(timer.current);
  }, [api, id]);

  async function act(action: () => Promise<unknown>) {
    setError(null);
    try {
      await action();
    } catch (failure) {
      setError(failure);
    }
    await refresh();
  }

  const topLevel = datasources.filter((datasource) => datasource.groupId === null);
  const childrenOf = (parent: string) => datasources.filter((datasource) => datasource.groupId === parent);

  return (
    <main id="main" class="page">
      <p class="crumbs"><Link href={`${uiBase}datastores`}>Datastores</Link> /</p>
      <h1>{datastore?.name ?? 'Datastore'}</h1>
      {datastore?.description ? <p class="muted">{datastore.description}</p> : null}
      <ErrorNote error={error} />
      <div class="columns">
        <UploadPanel api={api} datastoreId={id} maxFileBytes={maxFileBytes} onAdded={() => void refresh()} />
      </div>
      <section aria-labelledby="datasources-title" class="card">
        <h2 id="datasources-title">Datasources</h2>
        {topLevel.length === 0 ? (
          <p class="muted">Nothing here yet: drop files above or add a web page.</p>
        ) : (
          <div class="table-wrap">
            <table class="table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Status</th>
                  <th scope="col" class="num">Chunks</th>
                  <th scope="col" class="num">Tokens</th>
                  <th scope="col">Last sync</th>
                  <th scope="col"><span class="sr-only">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                {topLevel.map((datasource) => (
                  <DatasourceRow key={datasource.id} datasource={datasource} pages={childrenOf(datasource.id)} uiBase={uiBase}
                    onSync={() => void act(() => api.syncDatasource(datasource.id))} onDelete={() => setDeleting(datasource)}
                    onSchedule={(every) => void act(() => api.setRefresh(datasource.id, every ? { every } : null))} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <SearchPanel api={api} datastoreId={id} datasources={datasources} />
      {deleting ? (
        <ConfirmDialog
          title={`Delete ${deleting.name}?`}
          message="Its fragments leave the datastore (and the pages of a site with it)."
          confirm="Delete datasource"
          onCancel={() => setDeleting(null)}
          onConfirm={() => {
            const target = deleting;
            setDeleting(null);
            void act(() => api.deleteDatasource(target.id));
          }}
        />
      ) : null}
    </main>
  );
}

function DatasourceRow({ datasource, pages, uiBase, onSync, onDelete, onSchedule }: {
  datasource: Datasource; pages: Datasource[]; uiBase: string; onSync: () => void; onDelete: () => void; onSchedule: (every: string) => void;
}) {
  const url = typeof datasource.config.source_url === 'string' ? datasource.config.source_url : typeof datasource.config.sitemap === 'string' ? datasource.config.sitemap : null;
  const busy = datasource.status === 'pending' || datasource.status === 'running';
  const done = pages.filter((page) => page.status === 'synched' || page.status === 'error').length;
  const chunks = datasource.nbChunks + pages.reduce((sum, page) => sum + page.nbChunks, 0);
  const tokens = datasource.nbTokens + pages.reduce((sum, page) => sum + page.nbTokens, 0);
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
        {datasource.crawl ? <CrawlCounters crawl={datasource.crawl} /> : pages.length > 0 ? <span class="muted small block">{done} / {pages.length} pages</span> : null}
        {busy && pages.length > 0 ? <progress max={pages.length} value={done} aria-label="Pages synched" /> : null}
      </td>
      <td class="num" data-label="Chunks">{chunks}</td>
      <td class="num" data-label="Tokens">{tokens}</td>
      <td data-label="Last sync">{formatDate(datasource.lastSynch)}</td>
      <td class="actions">
        {datasource.type !== 'text' ? (
          <button type="button" class="button small" onClick={onSync} disabled={busy} aria-label={`Re-sync ${datasource.name}`}>Re-sync</button>
        ) : null}
        <button type="button" class="button small danger" onClick={onDelete} aria-label={`Delete ${datasource.name}`}>Delete</button>
      </td>
    </tr>
  );
}

