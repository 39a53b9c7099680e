import { useRef, useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { ErrorNote, explain, formatBytes } from './shared.js';

/** What the server's loaders read (the type is sniffed from the bytes; names are hints). */
const SUPPORTED = ['PDF', 'DOCX', 'PPTX', 'XLSX', 'CSV', 'JSON', 'Markdown', 'text', 'HTML'];
const ACCEPT = '.pdf,.docx,.pptx,.xlsx,.csv,.tsv,.json,.md,.markdown,.txt,.html,.htm';

interface UploadState {
  name: string;
  state: 'sending' | 'added' | 'refused';
  reason?: string;
}

/** Files by drag-and-drop or picker (several at once), a web page or a whole site. */
export function UploadPanel({
  api,
  datastoreId,
  maxFileBytes,
  onAdded,
}: {
  api: Api;
  datastoreId: string;
  maxFileBytes: number;
  onAdded: () => void;
}) {
  const [uploads, setUploads] = useState<UploadState[]>([]);
  const [over, setOver] = useState(false);
  const [customId, setCustomId] = useState('');
  const [webType, setWebType] = useState<'web_page' | 'web_site'>('web_page');
  const [url, setUrl] = useState('');
  const [webError, setWebError] = useState<unknown>(null);
  const picker = useRef<HTMLInputElement>(null);

  async function send(files: File[]) {
    const start = files.map((file): UploadState =>
      file.size > maxFileBytes
        ? { name: file.name, state: 'refused', reason: `larger than the ${formatBytes(maxFileBytes)} limit` }
        : { name: file.name, state: 'sending' },
    );
    // Every refusal stays listed: a batch of 200 must not hide the one file that failed.
    setUploads((all) => [...start, ...all]);
    const outcomes = await Promise.all(
      files.map(async (file, index) => {
        if (start[index]?.state === 'refused') return false;
        let result: UploadState;
        try {
          await api.uploadFile(datastoreId, file, customId.trim());
          result = { name: file.name, state: 'added' };
        } catch (error) {
          result = { name: file.name, state: 'refused', reason: explain(error) };
        }
        setUploads((all) => all.map((entry) => (entry.name === file.name && entry.state === 'sending' ? result : entry)));
        return result.state === 'added';
      }),
    );
    // One refetch for the whole batch, not one per file.
    if (outcomes.some(Boolean)) onAdded();
  }

  async function addWeb(event: Event) {
    event.preventDefault();
    setWebError(null);
    const trimmed = url.trim();
    const config: Record<string, string> =
      webType === 'web_site' && /\.xml(\?.*)?$/i.test(trimmed) ? { sitemap: trimmed } : { source_url: trimmed };
    try {
      await api.addWeb({ type: webType, datastoreId, config, ...(customId.trim() ? { custom_id: customId.trim() } : {}) });
      setUrl('');
      onAdded();
    } catch (error) {
      setWebError(error);
    }
  }

  return (
    <section class="card" aria-labelledby="add-title">
      <h2 id="add-title">Add content</h2>
      <div
        class={`dropzone${over ? ' over' : ''}`}
        onDragOver={(event) => {
          event.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(event) => {
          event.preventDefault();
          setOver(false);
          void send([...(event.dataTransfer?.files ?? [])]);
        }}
      >
        <p>
          <strong>Drop files here</strong> or
        </p>
        <button type="button" class="button primary" onClick={() => picker.current?.click()}>
          Choose files…
        </button>
        <input
          ref={picker}
          id="file-picker"
          class="sr-only"
          tabIndex={-1}
          type="file"
          multiple
          accept={ACCEPT}
          aria-label="Files to add"
          onChange={(event) => {
            const input = event.target as HTMLInputElement;
            void send([...(input.files ?? [])]);
            input.value = '';
          }}
        />
        <p class="muted small">
          {SUPPORTED.join(', ')} · up to {formatBytes(maxFileBytes)} each · the type is read from the content
        </p>
      </div>
      {uploads.length > 0 ? <UploadList uploads={uploads} /> : null}
      <form class="row wrap" onSubmit={(event) => void addWeb(event)}>
        <div class="field">
          <label for="web-type">Web</label>
          <select id="web-type" value={webType} onChange={(e) => setWebType((e.target as HTMLSelectElement).value as 'web_page')}>
            <option value="web_page">One page</option>
            <option value="web_site">Whole site (sitemap or start URL)</option>
          </select>
        </div>
        <div class="field grow">
          <label for="web-url">URL</label>
          <input
            id="web-url"
            type="url"
            required
            placeholder="https://example.com/docs/"
            value={url}
            onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
          />
        </div>
        <button type="submit" class="button">
          Add
        </button>
      </form>
      <ErrorNote error={webError} />
      <div class="field narrow">
        <label for="custom-id">custom_id for what you add (optional)</label>
        <input id="custom-id" value={customId} maxLength={200} onInput={(e) => setCustomId((e.target as HTMLInputElement).value)} />
      </div>
    </section>
  );
}

/** How many rows show before the rest fold under a "show all" toggle; refusals are always counted in the summary. */
const SHOWN = 20;

function UploadList({ uploads }: { uploads: UploadState[] }) {
  const refused = uploads.filter((upload) => upload.state === 'refused').length;
  const row = (upload: UploadState, index: number) => (
    <li key={`${upload.name}-${index}`} class={`upload-${upload.state}`}>
      <span>{upload.name}</span>{' '}
      <span class="small">
        {upload.state === 'sending' ? 'sending…' : upload.state === 'added' ? 'added' : `refused: ${upload.reason ?? ''}`}
      </span>
    </li>
  );
  // Refusals first, so none hides in the folded part.
  const ordered = [...uploads.filter((upload) => upload.state === 'refused'), ...uploads.filter((upload) => upload.state !== 'refused')];
  return (
    <div aria-live="polite">
      {refused > 0 ? (
        <p class="small upload-summary">
          {refused} of {uploads.length} refused
        </p>
      ) : null}
      <ul class="uploads" aria-label="Uploads">
        {ordered.slice(0, SHOWN).map(row)}
      </ul>
      {ordered.length > SHOWN ? (
        <details class="uploads-more">
          <summary>Show {ordered.length - SHOWN} more</summary>
          <ul class="uploads" aria-label="More uploads">
            {ordered.slice(SHOWN).map((upload, index) => row(upload, index + SHOWN))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}
