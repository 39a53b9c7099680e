import { useEffect, useState } from 'preact/hooks';
import type { Api, Usage, UsageFigure } from '../api.js';
import { ErrorNote, formatBytes } from './shared.js';

/** What the owner uses against each limit, as bars (figures without a limit show the amount only). */
export function UsagePage({ api }: { api: Api }) {
  const [usage, setUsage] = useState<Usage | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api.getUsage().then((found) => {
      setUsage(found);
      performance.mark('ragdesk:interactive');
    }, setError);
  }, [api]);

  const count = (value: number) => value.toLocaleString();
  return (
    <main id="main" class="page">
      <h1>Usage</h1>
      <ErrorNote error={error} />
      {usage === null ? (
        error ? null : (
          <p class="muted">Loading…</p>
        )
      ) : (
        <>
          <section class="card" aria-labelledby="limits-title">
            <h2 id="limits-title">Against the limits</h2>
            <ul class="usage-bars">
              <UsageBar
                name={`Agent queries${usage.agentQueries.period ? ` this ${usage.agentQueries.period}` : ''}`}
                figure={usage.agentQueries}
                format={count}
                note={usage.agentQueries.limit === null ? 'Not counted: no query limit is set.' : null}
              />
              <UsageBar name="Stored tokens" figure={usage.storedTokens} format={count} />
              <UsageBar name="Chunks" figure={usage.chunks} format={count} />
              <UsageBar name="Datasources" figure={usage.datasources} format={count} />
              <UsageBar name="Stored files" figure={usage.fileBytes} format={formatBytes} />
            </ul>
          </section>
          <section class="card" aria-labelledby="document-limits-title">
            <h2 id="document-limits-title">Limits of one document</h2>
            <dl class="totals">
              <div>
                <dt>File size</dt>
                <dd>{usage.perDocument.maxFileBytes === null ? 'none' : formatBytes(usage.perDocument.maxFileBytes)}</dd>
              </div>
              <div>
                <dt>Pages of a site</dt>
                <dd>{usage.perDocument.maxPagesPerSite === null ? 'none' : count(usage.perDocument.maxPagesPerSite)}</dd>
              </div>
              <div>
                <dt>Characters</dt>
                <dd>{usage.perDocument.maxChars === null ? 'none' : count(usage.perDocument.maxChars)}</dd>
              </div>
              <div>
                <dt>Chunks</dt>
                <dd>{usage.perDocument.maxChunks === null ? 'none' : count(usage.perDocument.maxChunks)}</dd>
              </div>
            </dl>
          </section>
        </>
      )}
    </main>
  );
}

function UsageBar({
  name,
  figure,
  format,
  note = null,
}: {
  name: string;
  figure: UsageFigure;
  format: (value: number) => string;
  note?: string | null;
}) {
  const used = figure.used;
  const text = used === null ? '—' : figure.limit === null ? `${format(used)} (no limit)` : `${format(used)} of ${format(figure.limit)}`;
  const share = used !== null && figure.limit !== null && figure.limit > 0 ? Math.min(1, used / figure.limit) : null;
  const level = share === null ? '' : share >= 1 ? 'full' : share >= 0.8 ? 'high' : '';
  return (
    <li class="usage-bar" data-usage={name}>
      <div class="row between">
        <span class="title">{name}</span>
        <span class="usage-figure">{text}</span>
      </div>
      {share !== null ? (
        <div
          class={`bar ${level}`}
          role="meter"
          aria-label={name}
          aria-valuemin={0}
          aria-valuemax={figure.limit ?? 0}
          aria-valuenow={used ?? 0}
          aria-valuetext={text}
        >
          <span style={{ width: `${(share * 100).toFixed(1)}%` }} />
        </div>
      ) : null}
      {note ? <p class="muted small">{note}</p> : null}
    </li>
  );
}
