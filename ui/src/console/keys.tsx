import { useEffect, useState } from 'preact/hooks';
import type { Api, ApiKey, ApiKeyScope, Datastore } from '../api.js';
import { ConfirmDialog, ErrorNote, formatDate } from './shared.js';

const SCOPES: [ApiKeyScope, string][] = [
  ['read', 'read: list and get'],
  ['write', 'write: create, change, delete'],
  ['query', 'query: search and ask agents'],
  ['admin', 'admin: everything, keys included'],
];

/** The owner's API keys: create (the secret shown once), list, revoke after a confirmation. */
export function KeysPage({ api }: { api: Api }) {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [datastores, setDatastores] = useState<Datastore[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);

  const load = () =>
    api.listKeys().then((list) => {
      setKeys(list);
      performance.mark('ragdesk:interactive');
    }, setError);
  useEffect(() => {
    void load();
    api.listDatastores().then(setDatastores, setError);
  }, [api]);

  async function run(action: () => Promise<unknown>) {
    setError(null);
    try {
      await action();
    } catch (failure) {
      setError(failure);
    }
    await load();
  }

  const names = new Map(datastores.map((datastore) => [datastore.id, datastore.name]));
  return (
    <main id="main" class="page">
      <h1>API keys</h1>
      <ErrorNote error={error} />
      <CreateKeyForm
        datastores={datastores}
        onCreate={(input) =>
          run(async () => {
            setCreated(null);
            const made = await api.createKey(input);
            setCreated({ name: made.name || made.prefix, secret: made.key });
          })
        }
      />
      {created ? <NewSecret name={created.name} secret={created.secret} onDone={() => setCreated(null)} /> : null}
      <section class="card" aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        {keys === null ? (
          <p class="muted">Loading…</p>
        ) : keys.length === 0 ? (
          <p class="muted">No keys.</p>
        ) : (
          <div class="table-wrap">
            <table class="table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Key</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Datastores</th>
                  <th scope="col">Created</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Last used</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.map((key) => (
                  <tr key={key.id} data-key={key.id} class={key.revokedAt ? 'revoked' : ''}>
                    <td>
                      <span class="title">{key.name || 'unnamed'}</span>
                      {key.revokedAt ? <span class="badge badge-error">revoked</span> : null}
                    </td>
                    <td data-label="Key">
                      <code>{key.prefix}…</code>
                    </td>
                    <td data-label="Scopes">{key.scopes.join(', ')}</td>
                    <td data-label="Datastores">
                      {key.datastoreIds === null ? 'all' : key.datastoreIds.map((id) => names.get(id) ?? id).join(', ')}
                    </td>
                    <td data-label="Created">{formatDate(key.createdAt)}</td>
                    <td data-label="Expires">{key.expiresAt ? formatDate(key.expiresAt) : 'never'}</td>
                    <td data-label="Last used">{key.lastUsedAt ? formatDate(key.lastUsedAt) : 'never'}</td>
                    <td class="actions">
                      {key.revokedAt ? (
                        <span class="muted small">revoked {formatDate(key.revokedAt)}</span>
                      ) : (
                        <button
                          type="button"
                          class="button small danger"
                          onClick={() => setRevoking(key)}
                          aria-label={`Revoke ${key.name || key.prefix}`}
                        >
                          Revoke
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {revoking ? (
        <ConfirmDialog
          title={`Revoke ${revoking.name || revoking.prefix}?`}
          message="Every request with this key is refused from now on. This cannot be undone."
          confirm="Revoke key"
          onCancel={() => setRevoking(null)}
          onConfirm={() => {
            const target = revoking;
            setRevoking(null);
            void run(() => api.revokeKey(target.id));
          }}
        />
      ) : null}
    </main>
  );
}

interface KeyInput {
  name: string;
  scopes: ApiKeyScope[];
  datastoreIds: string[] | null;
  expiresAt: string | null;
}

function CreateKeyForm({ datastores, onCreate }: { datastores: Datastore[]; onCreate: (input: KeyInput) => Promise<void> }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ApiKeyScope[]>(['read', 'query']);
  const [limited, setLimited] = useState<string[]>([]);
  const [expires, setExpires] = useState('');
  const toggle = <T,>(list: T[], value: T) => (list.includes(value) ? list.filter((item) => item !== value) : [...list, value]);
  return (
    <form
      class="card form"
      aria-labelledby="new-key-title"
      onSubmit={(event) => {
        event.preventDefault();
        void onCreate({
          name: name.trim(),
          scopes,
          datastoreIds: limited.length > 0 ? limited : null,
          // The date input gives a day: the key works until the end of it, in this browser's time zone.
          expiresAt: expires ? new Date(`${expires}T23:59:59`).toISOString() : null,
        }).then(() => setName(''));
      }}
    >
      <h2 id="new-key-title">New key</h2>
      <div class="field">
        <label for="new-key-name">Name</label>
        <input id="new-key-name" value={name} maxLength={200} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      </div>
      <fieldset>
        <legend>Scopes</legend>
        {SCOPES.map(([scope, label]) => (
          <label key={scope} class="check">
            <input type="checkbox" checked={scopes.includes(scope)} onChange={() => setScopes(toggle(scopes, scope))} />
            {label}
          </label>
        ))}
      </fieldset>
      {datastores.length > 0 ? (
        <fieldset>
          <legend>Datastores (none checked: all)</legend>
          {datastores.map((datastore) => (
            <label key={datastore.id} class="check">
              <input type="checkbox" checked={limited.includes(datastore.id)} onChange={() => setLimited(toggle(limited, datastore.id))} />
              {datastore.name}
            </label>
          ))}
        </fieldset>
      ) : null}
      <div class="field narrow">
        <label for="new-key-expires">Expires after (optional)</label>
        <input id="new-key-expires" type="date" value={expires} onInput={(e) => setExpires((e.target as HTMLInputElement).value)} />
      </div>
      <div class="row end">
        <button type="submit" class="button primary" disabled={scopes.length === 0}>
          Create key
        </button>
      </div>
    </form>
  );
}

/** The secret of a key just created: shown here once, with a copy button. */
function NewSecret({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  return (
    <section class="card new-secret" aria-labelledby="secret-title" role="status">
      <h2 id="secret-title">Key “{name}” created</h2>
      <p>Copy it now: it is shown only this once.</p>
      <div class="row wrap">
        <input
          class="grow secret"
          aria-label="New API key"
          readOnly
          value={secret}
          onFocus={(e) => (e.target as HTMLInputElement).select()}
        />
        <button
          type="button"
          class="button primary"
          onClick={() => {
            navigator.clipboard.writeText(secret).then(
              () => setCopied('yes'),
              () => setCopied('no'),
            );
          }}
        >
          Copy
        </button>
        <button type="button" class="button" onClick={onDone}>
          Done
        </button>
      </div>
      {copied === 'yes' ? (
        <p class="small">Copied.</p>
      ) : copied === 'no' ? (
        <p class="small error">The browser refused to copy: select the key and copy it.</p>
      ) : null}
    </section>
  );
}
