import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Chat } from '../chat.js';
import { browserStorage } from '../conversation-history.js';
import chatCss from '../chat.css?inline';
import widgetCss from './widget.css?inline';
import { fetchAgentLook, type AgentLook } from './agent-look.js';

/**
 * `<script src="https://host/widget.js" data-agent-id="…" defer></script>`: a chat bubble for a
 * public agent, drawn in a shadow root so the site's CSS and ours never meet. The API is the one
 * the script came from (`data-api-base` overrides its path); the server must allow the site's
 * origin (CORS). The agent's `interfaceConfig` sets the colour, title, first messages and side
 * (`data-title` wins over its `displayName`).
 */
const script = document.currentScript as HTMLScriptElement | null;
const agentId = script?.dataset.agentId;
if (script && agentId) {
  const origin = new URL(script.src, location.href).origin;
  const apiBase = origin + (script.dataset.apiBase ?? '/api').replace(/\/$/, '');
  const title = script.dataset.title;
  const mount = () => {
    const host = document.createElement('div');
    host.setAttribute('data-ragdesk-widget', agentId);
    document.body.append(host);
    const root = host.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent = chatCss + widgetCss;
    const container = document.createElement('div');
    container.className = 'ragdesk-widget';
    root.append(style, container);
    render(<Widget agentId={agentId} apiBase={apiBase} title={title} />, container);
  };
  if (document.body) mount();
  else addEventListener('DOMContentLoaded', mount, { once: true });
}

function Widget({ agentId, apiBase, title: fixedTitle }: { agentId: string; apiBase: string; title: string | undefined }) {
  const [open, setOpen] = useState(false);
  const [look, setLook] = useState<AgentLook | null>(null);
  const panel = useRef<HTMLElement>(null);
  const launcher = useRef<HTMLButtonElement>(null);
  /** Focus follows the panel: into the question box on open, back to the launcher on close. */
  const wasOpen = useRef(false);
  useEffect(() => {
    if (open) panel.current?.querySelector('textarea')?.focus();
    else if (wasOpen.current) launcher.current?.focus();
    wasOpen.current = open;
  }, [open]);
  useEffect(() => {
    void fetchAgentLook(apiBase, agentId).then(setLook);
  }, [apiBase, agentId]);
  const title = fixedTitle ?? look?.displayName ?? 'Ask us';
  const initialMessages = look?.initialMessages ?? [];
  // A CSS custom property set through the style object (CSSOM), which a page's CSP allows.
  const style = look?.primaryColor ? { '--accent': look.primaryColor } : {};
  // The site's storage, per agent: the conversation comes back when the visitor reloads the page.
  const [storage] = useState(browserStorage);
  return (
    <div class={`widget-frame ${look?.position === 'left' ? 'left' : 'right'}`} style={style}>
      {open ? (
        <section
          ref={panel}
          class="panel"
          role="dialog"
          aria-label={title}
          onKeyDown={(event) => {
            if (event.key === 'Escape') setOpen(false);
          }}
        >
          <header class="panel-head">
            <span>{title}</span>
            <button type="button" class="close" aria-label="Close the chat" onClick={() => setOpen(false)}>
              ×
            </button>
          </header>
          <Chat
            apiBase={apiBase}
            agentId={agentId}
            apiKey={null}
            storage={storage}
            greeting="Ask a question; answers cite their sources."
            initialMessages={initialMessages}
          />
        </section>
      ) : null}
      <button
        ref={launcher}
        type="button"
        class="bubble"
        aria-expanded={open}
        aria-label={open ? 'Close the chat' : title}
        onClick={() => setOpen(!open)}
      >
        <svg viewBox="0 0 24 24" width="26" height="26" aria-hidden="true">
          <path fill="currentColor" d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H8l-4 4V6a2 2 0 0 1 2-2z" />
        </svg>
      </button>
    </div>
  );
}
