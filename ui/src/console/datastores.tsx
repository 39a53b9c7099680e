import { useEffect, useState } from 'preact/hooks';
import type { Api, Datastore } from '../api.js';
import { ConfirmDialog, ErrorNote, Link, formatDate } from './shared.js';

/** The key owner's datastores: list, create, rename, delete. */
export function DatastoresPage({ api, uiBase }: { api: Api; uiBase: string }) {
  const [datastores, setDatastores] = useState<Datastore[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [renaming, setRenaming] = useState<{ id: string; name: string } | null>(null);
  const [deleting, setDeleting] = useState<Datastore | null>(null);

  const load = () =>
    api.listDatastores().then((list) => {
      setDatastores(list);
      performance.mark('ragdesk:interactive');
    }, setError);
  useEffect(() => void load(), [api]);

  async function run(action: () => Promise<unknown>) {
    setError(null);
    try {
      await action();
      await load();
    } catch (failure) {
      setError(failure);
    }
  }

  return (
    <main id="main" class="page">
      <h1>Datastores</h1>
      <form
        class="card row wrap"
        onSubmit={(event) => {
          event.preventDefault();
          void run(async () => {
            await api.createDatastore(name.trim(), description.trim());
            setName('');
            setDescription('');
          });
        }}
      >
        <div class="field grow">
          <label for="new-datastore-name">Name</label>
          <input
            id="new-datastore-name"
            value={name}
            required
            maxLength={200}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </div>
        <div class="field grow">
          <label for="new-datastore-description">Description (optional)</label>
          <input
            id="new-datastore-description"
            value={description}
            maxLength={10000}
            onInput={(e) => setDescription((e.target as HTMLInputElement).value)}
          />
        </div>
        <button type="submit" class="button primary" disabled={name.trim() === ''}>
          Create datastore
        </button>
      </form>
      <ErrorNote error={error} />
      {datastores === null ? (
        <p class="muted">Loading…</p>
      ) : datastores.length === 0 ? (
        <p class="muted">No datastore yet. Create one, then drop files on it.</p>
      ) : (
        <ul class="list" aria-label="Datastores">
          {datastores.map((datastore) => (
            <li key={datastore.id} class="list-item">
              {renaming?.id === datastore.id ? (
                <form
                  class="row grow"
                  onSubmit={(event) => {
                    event.preventDefault();
                    void run(async () => {
                      await api.renameDatastore(datastore.id, renaming.name.trim());
                      setRenaming(null);
                    });
                  }}
                >
                  <label class="sr-only" for={`rename-${datastore.id}`}>
                    New name
                  </label>
                  <input
                    id={`rename-${datastore.id}`}
                    class="grow"
                    value={renaming.name}
                    required
                    autofocus
                    onInput={(e) => setRenaming({ id: datastore.id, name: (e.target as HTMLInputElement).value })}
                  />
                  <button type="submit" class="button primary">
                    Save
                  </button>
                  <button type="button" class="button" onClick={() => setRenaming(null)}>
                    Cancel
                  </button>
                </form>
              ) : (
                <>
                  <div class="grow">
                    <Link href={`${uiBase}datastores/${datastore.id}`} class="title">
                      {datastore.name}
                    </Link>
                    <p class="muted small">
                      {datastore.description || 'No description'} · created {formatDate(datastore.createdAt)}
                    </p>
                  </div>
                  <button
                    type="button"
                    class="button"
                    onClick={() => setRenaming({ id: datastore.id, name: datastore.name })}
                    aria-label={`Rename ${datastore.name}`}
                  >
                    Rename
                  </button>
                  <button
                    type="button"
                    class="button danger"
                    onClick={() => setDeleting(datastore)}
                    aria-label={`Delete ${datastore.name}`}
                  >
                    Delete
                  </button>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      {deleting ? (
        <ConfirmDialog
          title={`Delete ${deleting.name}?`}
          message="Its datasources, fragments and vector index are deleted. Agents reading it keep their other datastores."
          confirm="Delete datastore"
          onCancel={() => setDeleting(null)}
          onConfirm={() => {
            const target = deleting;
            setDeleting(null);
            void run(() => api.deleteDatastore(target.id));
          }}
        />
      ) : null}
    </main>
  );
}
