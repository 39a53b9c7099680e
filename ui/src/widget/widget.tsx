import { render } from 'preact';
import { useState } from 'preact/hooks';
import { Chat } from '../chat.js';
import { browserStorage } from '../conversation-history.js';
import chatCss from '../chat.css?inline';
import widgetCss from './widget.css?inline';

/**
 * `<script src="https://host/widget.js" data-agent-id="…" defer></script>`: a chat bubble for a
 * public agent, drawn in a shadow root so the site's CSS and ours never meet. The API is the one
 * the script came from (`data-api-base` overrides its path); the server must allow the site's
 * origin (CORS).
 */
const script = document.currentScript as HTMLScriptElement | null;
const agentId = script?.dataset.agentId;
if (script && agentId) {
  const origin = new URL(script.src, location.href).origin;
  const apiBase = origin + (script.dataset.apiBase ?? '/api').replace(/\/$/, '');
  const title = script.dataset.title ?? 'Ask us';
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

function Widget({ agentId, apiBase, title }: { agentId: string; apiBase: string; title: string }) {
  const [open, setOpen] = useState(false);
  // The site's storage, per agent: the conversation comes back when the visitor reloads the page.
  const [storage] = useState(browserStorage);
  return (
    <>
      {open ? (
        <section class="panel" role="dialog" aria-label={title} onKeyDown={(event) => event.key === 'Escape' && setOpen(false)}>
          <header class="panel-head">
            <span>{title}</span>
            <button type="button" class="close" aria-label="Close the chat" onClick={() => setOpen(false)}>×</button>
          </header>
          <Chat apiBase={apiBase} agentId={agentId} apiKey={null} storage={storage} greeting="Ask a question; answers cite their sources." />
        </section>
      ) : null}
      <button type="button" class="bubble" aria-expanded={open} aria-label={open ? 'Close the chat' : title} onClick={() => setOpen(!open)}>
        <svg viewBox="0 0 24 24" width="26" height="26" aria-hidden="true"><path fill="currentColor" d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H8l-4 4V6a2 2 0 0 1 2-2z" /></svg>
      </button>
    </>
  );
}
