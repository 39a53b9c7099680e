import { useEffect, useRef, useState } from 'preact/hooks';
import { Chat, NOT_ALLOWED_HERE } from '../chat.js';
import chatCss from '../chat.css?inline';
import widgetCss from './widget.css?inline';
import type { AgentLook } from './agent-look.js';

/**
 * A shadow root on `host` with the widget's styles, and the element to render into: the site's CSS
 * and ours never meet. The styles go in as a constructed sheet where the browser has them (a page's
 * CSP that forbids inline styles, as the console's does, does not apply to it), else as <style>.
 */
export function widgetShadow(host: HTMLElement): HTMLElement {
  const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
  const css = chatCss + widgetCss;
  if ('adoptedStyleSheets' in root && typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    root.adoptedStyleSheets = [sheet];
  } else {
    const style = document.createElement('style');
    style.textContent = css;
    root.append(style);
  }
  const container = document.createElement('div');
  container.className = 'ragdesk-widget';
  root.append(container);
  return container;
}

export interface WidgetViewProps {
  agentId: string;
  apiBase: string;
  /** Sent with questions when present (the console's preview); the widget on a site has none. */
  apiKey: string | null;
  /** Null while the agent's public view is being read. */
  look: AgentLook | null;
  /** `data-title`: wins over the agent's `displayName`. */
  title?: string | undefined;
  storage: Storage | null;
  /** Drawn inside its container instead of fixed to the window (the console's preview). */
  inline?: boolean;
  startOpen?: boolean;
}

/** The launcher and, when open, the chat panel. */
export function WidgetView({
  agentId,
  apiBase,
  apiKey,
  look,
  title: fixedTitle,
  storage,
  inline = false,
  startOpen = false,
}: WidgetViewProps) {
  const [open, setOpen] = useState(startOpen);
  const panel = useRef<HTMLElement>(null);
  const launcher = useRef<HTMLButtonElement>(null);
  /** Focus follows the panel: into the question box on open, back to the launcher on close. */
  const wasOpen = useRef(startOpen);
  useEffect(() => {
    if (open && !wasOpen.current) panel.current?.querySelector('textarea')?.focus();
    else if (!open && wasOpen.current) launcher.current?.focus();
    wasOpen.current = open;
  }, [open]);
  const title = fixedTitle ?? look?.displayName ?? 'Ask us';
  // CSS custom properties set through the style object (CSSOM), which a page's CSP allows.
  const style = look?.primaryColor ? { '--accent': look.primaryColor, '--accent-fg': look.primaryText ?? '#ffffff' } : {};
  const icon = look?.iconUrl ? <img class="icon" src={look.iconUrl} alt="" referrerpolicy="no-referrer" /> : null;
  return (
    <div class={`widget-frame ${look?.position === 'left' ? 'left' : 'right'}${inline ? ' inline' : ''}`} style={style}>
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
            <span class="panel-title">
              {icon}
              <span>{title}</span>
            </span>
            <button type="button" class="close" aria-label="Close the chat" onClick={() => setOpen(false)}>
              ×
            </button>
          </header>
          {look?.refused ? (
            <p class="not-allowed" role="alert">
              {NOT_ALLOWED_HERE}
            </p>
          ) : (
            <Chat
              apiBase={apiBase}
              agentId={agentId}
              apiKey={apiKey}
              storage={storage}
              greeting="Ask a question; answers cite their sources."
              initialMessages={look?.initialMessages ?? []}
              suggestions={look?.suggestions ?? []}
            />
          )}
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
        {icon ?? (
          <svg viewBox="0 0 24 24" width="26" height="26" aria-hidden="true">
            <path fill="currentColor" d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H8l-4 4V6a2 2 0 0 1 2-2z" />
          </svg>
        )}
      </button>
    </div>
  );
}
