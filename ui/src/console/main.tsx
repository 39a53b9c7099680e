import { render } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Api, type Agent } from '../api.js';
import { Chat } from '../chat.js';
import '../chat.css';
import './console.css';
import { AgentsPage } from './agents.js';
import { ConversationsPage } from './conversations.js';
import { browserStorage } from '../conversation-history.js';
import { DatastorePage } from './datastore.js';
import { CrawlPagesPage } from './crawl.js';
import { DatastoresPage } from './datastores.js';
import { KeysPage } from './keys.js';
import { UsagePage } from './usage.js';
import { ErrorNote, Link, navigate } from './shared.js';
import { SignIn } from './signin.js';
import { fetchAgentLook, type AgentLook } from '../widget/agent-look.js';

const KEY_STORAGE = 'ragdesk.apiKey';

/** Set by the server in the page (see adapters/http/ui/page.ts). */
function meta(name: string, fallback: string): string {
  return document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? fallback;
}
const apiBase = meta('ragdesk-api-base', '/api').replace(/\/$/, '');
const uiBase = meta('ragdesk-ui-base', '/');
const maxFileBytes = Number(meta('ragdesk-max-file-bytes', String(50 * 1024 * 1024)));

function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const changed = () => setPath(location.pathname);
    addEventListener('popstate', changed);
    return () => removeEventListener('popstate', changed);
  }, []);
  return path;
}

function App() {
  const path = usePath();
  const [key, setKey] = useState<string | null>(() => sessionStorage.getItem(KEY_STORAGE));
  const api = useMemo(() => new Api(apiBase, key), [key]);
  const route = path.startsWith(uiBase) ? path.slice(uiBase.length).split('/').map(decodeURIComponent) : [''];
  const [section, id, part] = route;

  const firstPath = useRef(path);
  useEffect(() => {
    // After an in-console navigation, move focus to the new page's heading so keyboard and
    // screen-reader users land on it (a fresh page load keeps the browser's own start).
    if (path === firstPath.current) return;
    firstPath.current = '';
    const heading = document.querySelector<HTMLElement>('main h1');
    if (heading) {
      heading.tabIndex = -1;
      heading.focus();
    }
  }, [path]);

  if (section === 'chat' && id) return <ChatPage agentId={id} apiKey={key} />;
  if (!key) {
    return (
      <SignIn
        apiBase={apiBase}
        onSignedIn={(value) => {
          sessionStorage.setItem(KEY_STORAGE, value);
          setKey(value);
          if (!section) navigate(`${uiBase}datastores`);
        }}
      />
    );
  }
  const signOut = () => {
    sessionStorage.removeItem(KEY_STORAGE);
    setKey(null);
  };
  let page;
  if (section === 'agents' && id && part === 'widget')
    page = <LazyWidgetSettings api={api} apiBase={apiBase} uiBase={uiBase} agentId={id} />;
  else if (section === 'agents') page = <AgentsPage api={api} uiBase={uiBase} editId={id ?? null} />;
  else if (section === 'conversations' && id) page = <ConversationsPage api={api} uiBase={uiBase} agentId={id} />;
  else if (section === 'datastores' && id) page = <DatastorePage api={api} uiBase={uiBase} id={id} maxFileBytes={maxFileBytes} />;
  else if (section === 'keys') page = <KeysPage api={api} />;
  else if (section === 'usage') page = <UsagePage api={api} />;
  else if (section === 'pages' && id) page = <CrawlPagesPage api={api} uiBase={uiBase} id={id} />;
  else page = <DatastoresPage api={api} uiBase={uiBase} />;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <Link href={`${uiBase}datastores`} class="brand">
          ragdesk
        </Link>
        <nav aria-label="Sections">
          <Link href={`${uiBase}datastores`} class={!['agents', 'conversations', 'keys', 'usage'].includes(section ?? '') ? 'active' : ''}>
            Datastores
          </Link>
          <Link href={`${uiBase}agents`} class={section === 'agents' || section === 'conversations' ? 'active' : ''}>
            Agents
          </Link>
          <Link href={`${uiBase}usage`} class={section === 'usage' ? 'active' : ''}>
            Usage
          </Link>
          <Link href={`${uiBase}keys`} class={section === 'keys' ? 'active' : ''}>
            API keys
          </Link>
        </nav>
        <button type="button" class="button small" onClick={signOut}>
          Sign out
        </button>
      </header>
      {page}
    </>
  );
}

type WidgetSettingsProps = Parameters<typeof import('./widget-settings.js').WidgetSettingsPage>[0];

/** The widget settings page and its preview (the widget's own code and styles) load when first opened. */
function LazyWidgetSettings(props: WidgetSettingsProps) {
  const [Page, setPage] = useState<{ render: typeof import('./widget-settings.js').WidgetSettingsPage } | null>(null);
  const [failed, setFailed] = useState<unknown>(null);
  useEffect(() => {
    import('./widget-settings.js').then((module) => setPage({ render: module.WidgetSettingsPage }), setFailed);
  }, []);
  if (Page) return <Page.render {...props} />;
  return (
    <main id="main" class="page">
      <h1>Widget</h1>
      {failed ? <ErrorNote error={failed} /> : <p class="muted">Loading…</p>}
    </main>
  );
}

/**
 * `/chat/{agentId}`: public agents need no key. The agent's name (its `displayName` when set) and
 * colour come from its public view, so visitors see whom they talk to; with a key, from the agent.
 */
function ChatPage({ agentId, apiKey }: { agentId: string; apiKey: string | null }) {
  const [agent, setAgent] = useState<Agent | null>(null);
  const [look, setLook] = useState<AgentLook | null>(null);
  useEffect(() => {
    performance.mark('ragdesk:interactive');
    if (apiKey) new Api(apiBase, apiKey).getAgent(agentId).then(setAgent, () => setAgent(null));
    void fetchAgentLook(apiBase, agentId).then(setLook);
  }, [agentId, apiKey]);
  const name = look?.displayName ?? look?.name ?? agent?.name ?? null;
  const greeting = look?.description ?? (agent?.description || 'Ask a question; answers cite their sources.');
  const style = look?.primaryColor ? { '--accent': look.primaryColor, '--accent-fg': look.primaryText ?? '#ffffff' } : undefined;
  return (
    <div class="chat-page" style={style}>
      <header class="topbar">
        {apiKey ? (
          <Link href={`${uiBase}agents`} class="brand">
            ragdesk
          </Link>
        ) : (
          <span class="brand">ragdesk</span>
        )}
        <span class="agent-name">{name ?? 'Chat'}</span>
      </header>
      <main id="main" class="chat-main">
        <h1 class="sr-only" tabIndex={-1}>
          Chat{name ? ` with ${name}` : ''}
        </h1>
        <Chat
          apiBase={apiBase}
          agentId={agentId}
          apiKey={apiKey}
          storage={browserStorage()}
          greeting={greeting}
          initialMessages={look?.initialMessages ?? []}
          suggestions={look?.suggestions ?? []}
        />
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
