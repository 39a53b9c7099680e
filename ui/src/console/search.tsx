import { useState } from 'preact/hooks';
import type { Api, Datasource, Fragment, RetrievalMode } from '../api.js';
import { safeHref } from '../markdown.js';
import { Snippet, queryWords } from './highlight.js';
import { ErrorNote } from './shared.js';

const MODES: [RetrievalMode, string][] = [
  ['hybrid', 'Hybrid (meaning and words)'],
  ['vector', 'Vector (meaning)'],
  ['lexical', 'Lexical (words)'],
];

/**
 * Datastore query with a retrieval mode and the API's filters (datasource, custom_id). Results
 * show a snippet around the query's words, marked, with "Show all" for the whole fragment.
 */
export function SearchPanel({ api, datastoreId, datasources }: { api: Api; datastoreId: string; datasources: Datasource[] }) {
  const [query, setQuery] = useState('');
  const [topK, setTopK] = useState(5);
  const [mode, setMode] = useState<RetrievalMode>('hybrid');
  const [searched, setSearched] = useState('');
  const [datasourceId, setDatasourceId] = useState('');
  const [customId, setCustomId] = useState('');
  const [results, setResults] = useState<Fragment[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [searching, setSearching] = useState(false);

  async function search(event: Event) {
    event.preventDefault();
    setError(null);
    setSearching(true);
    try {
      const filters = {
        ...(datasourceId ? { datasource_ids: [datasourceId] } : {}),
        ...(customId.trim() ? { custom_ids: [customId.trim()] } : {}),
      };
      const asked = query.trim();
      setResults(await api.queryDatastore(datastoreId, { query: asked, topK, mode, ...(Object.keys(filters).length ? { filters } : {}) }));
      setSearched(asked);
    } catch (failure) {
      setError(failure);
    } finally {
      setSearching(false);
    }
  }

  return (
    <section class="card" aria-labelledby="search-title">
      <h2 id="search-title">Search</h2>
      <form class="row wrap" role="search" aria-labelledby="search-title" onSubmit={(event) => void search(event)}>
        <div class="field grow">
          <label for="search-query">Query</label>
          <input id="search-query" type="search" required value={query} onInput={(e) => setQuery((e.target as HTMLInputElement).value)} />
        </div>
        <div class="field">
          <label for="search-mode">Mode</label>
          <select id="search-mode" value={mode} onChange={(e) => setMode((e.target as HTMLSelectElement).value as RetrievalMode)}>
            {MODES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="search-datasource">Datasource</label>
          <select id="search-datasource" value={datasourceId} onChange={(e) => setDatasourceId((e.target as HTMLSelectElement).value)}>
            <option value="">All</option>
            {datasources.map((datasource) => (
              <option key={datasource.id} value={datasource.id}>
                {datasource.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="search-custom-id">custom_id</label>
          <input id="search-custom-id" value={customId} size={10} onInput={(e) => setCustomId((e.target as HTMLInputElement).value)} />
        </div>
        <div class="field">
          <label for="search-topk">Results</label>
          <select id="search-topk" value={String(topK)} onChange={(e) => setTopK(Number((e.target as HTMLSelectElement).value))}>
            {[3, 5, 10, 20].map((n) => (
              <option key={n} value={String(n)}>
                {n}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" class="button primary" disabled={searching || query.trim() === ''}>
          Search
        </button>
      </form>
      <ErrorNote error={error} />
      {results === null ? null : results.length === 0 ? (
        <p class="muted">No fragment matches.</p>
      ) : (
        <ol class="results" aria-label="Search results">
          {results.map((fragment, index) => {
            const href = safeHref(fragment.source);
            return (
              <li key={fragment.chunk_id} class="result">
                <p class="small muted">
                  <span class="score">score {fragment.score.toFixed(3)}</span> · {fragment.datasource_name || 'untitled'}
                  {fragment.page_number === null ? '' : ` · page ${fragment.page_number}`}
                  {fragment.custom_id ? ` · custom_id ${fragment.custom_id}` : ''}
                  {href ? (
                    <>
                      {' '}
                      ·{' '}
                      <a href={href} target="_blank" rel="noopener noreferrer nofollow">
                        source
                      </a>
                    </>
                  ) : null}
                </p>
                <Snippet text={fragment.text} words={queryWords(searched)} label={`result ${index + 1}`} />
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
