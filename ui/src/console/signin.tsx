import { useState } from 'preact/hooks';
import { Api } from '../api.js';
import { ErrorNote } from './shared.js';

/**
 * Sign-in with an API key. The key is checked with a real call (listing datastores) and kept in
 * sessionStorage only: never in a URL, gone when the tab closes.
 */
export function SignIn({ apiBase, onSignedIn }: { apiBase: string; onSignedIn: (key: string) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [checking, setChecking] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    const trimmed = key.trim();
    if (!trimmed) return;
    setChecking(true);
    setError(null);
    try {
      await new Api(apiBase, trimmed).listDatastores();
      onSignedIn(trimmed);
    } catch (failure) {
      setError(failure);
    } finally {
      setChecking(false);
    }
  }

  return (
    <main class="signin" id="main">
      <form class="card" onSubmit={(event) => void submit(event)} aria-labelledby="signin-title">
        <h1 id="signin-title">Sign in to ragdesk</h1>
        <p class="muted">
          Paste an API key. <code>ragdesk serve</code> prints an admin key on its first start; <code>ragdesk keys create</code> makes more.
          The key stays in this tab only.
        </p>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={key}
          placeholder="rdk_…"
          required
          onInput={(event) => setKey((event.target as HTMLInputElement).value)}
        />
        <ErrorNote error={error} />
        <button type="submit" class="button primary" disabled={checking}>
          {checking ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
