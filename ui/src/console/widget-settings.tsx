import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Agent, Api } from '../api.js';
import { lookOf, type AgentLook } from '../widget/agent-look.js';
import { WidgetView, widgetShadow } from '../widget/widget-view.js';
import { EmbedSnippet } from './embed-snippet.js';
import { ErrorNote, Link, StatusNote } from './shared.js';

/** The form's fields as typed (lists one entry per line); saved into the agent's `interfaceConfig`. */
interface WidgetForm {
  displayName: string;
  primaryColor: string;
  position: 'right' | 'left';
  iconUrl: string;
  initialMessages: string;
  suggestions: string;
  origins: string;
}

const DEFAULT_COLOUR = '#2456d3';

/**
 * `/agents/{id}/widget`: how the agent's chat widget looks (colour, name, icon, side, first
 * messages, suggested questions), which sites may use it, a live preview of the unsaved values
 * drawn by the widget's own component, and the embed code.
 */
export function WidgetSettingsPage({ api, apiBase, uiBase, agentId }: { api: Api; apiBase: string; uiBase: string; agentId: string }) {
  const [agent, setAgent] = useState<Agent | null>(null);
  const [form, setForm] = useState<WidgetForm | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    api.getAgent(agentId).then((loaded) => {
      setAgent(loaded);
      setForm(formOf(loaded.interfaceConfig ?? {}));
      performance.mark('ragdesk:interactive');
    }, setError);
  }, [api, agentId]);

  async function save(event: Event) {
    event.preventDefault();
    if (!agent || !form) return;
    setError(null);
    setNotice(null);
    try {
      const saved = await api.setAgentInterface(agent, configOf(form, agent.interfaceConfig ?? {}));
      setAgent(saved);
      setForm(formOf(saved.interfaceConfig ?? {}));
      setNotice('Widget settings saved.');
    } catch (failure) {
      setError(failure);
    }
  }

  if (!agent || !form) {
    return (
      <main id="main" class="page">
        <h1>Widget</h1>
        <ErrorNote error={error} />
        {error ? null : <p class="muted">Loading…</p>}
      </main>
    );
  }
  const set = (change: Partial<WidgetForm>) => setForm({ ...form, ...change });
  const value = (event: Event) => (event.target as HTMLInputElement).value;
  const look: AgentLook = { ...lookOf(configOf(form, agent.interfaceConfig ?? {})), name: agent.name, description: agent.description };
  return (
    <main id="main" class="page">
      <p class="small">
        <Link href={`${uiBase}agents`}>← Agents</Link>
      </p>
      <h1>Widget of {agent.name}</h1>
      <ErrorNote error={error} />
      <StatusNote notice={notice} />
      <div class="widget-settings">
        <form class="card form" onSubmit={(event) => void save(event)} aria-labelledby="widget-form-title">
          <h2 id="widget-form-title">Settings</h2>
          <label for="widget-display-name">Display name</label>
          <input
            id="widget-display-name"
            maxLength={500}
            placeholder="Ask us"
            value={form.displayName}
            onInput={(e) => set({ displayName: value(e) })}
          />
          <label for="widget-colour">Primary colour</label>
          <div class="row">
            <input
              id="widget-colour"
              class="grow"
              maxLength={100}
              placeholder={DEFAULT_COLOUR}
              value={form.primaryColor}
              onInput={(e) => set({ primaryColor: value(e) })}
              aria-describedby="widget-colour-help"
            />
            <input
              type="color"
              class="colour-picker"
              aria-label="Pick the primary colour"
              value={/^#[0-9a-f]{6}$/i.test(form.primaryColor) ? form.primaryColor : DEFAULT_COLOUR}
              onInput={(e) => set({ primaryColor: value(e) })}
            />
          </div>
          <p id="widget-colour-help" class="small muted">
            A hex colour (#0b7285), rgb() or a colour name. Text on it is black or white, whichever reads better.
          </p>
          <label for="widget-position">Position</label>
          <select id="widget-position" value={form.position} onChange={(e) => set({ position: value(e) as WidgetForm['position'] })}>
            <option value="right">Bottom right</option>
            <option value="left">Bottom left</option>
          </select>
          <label for="widget-icon">Icon URL (optional)</label>
          <input
            id="widget-icon"
            maxLength={48000}
            placeholder="https://example.com/logo.png"
            value={form.iconUrl}
            onInput={(e) => set({ iconUrl: value(e) })}
            aria-describedby="widget-icon-help"
          />
          <p id="widget-icon-help" class="small muted">
            An http(s) address or a data:image URL, shown as an image.
          </p>
          <label for="widget-initial-messages">First messages (one per line)</label>
          <textarea
            id="widget-initial-messages"
            rows={3}
            value={form.initialMessages}
            onInput={(e) => set({ initialMessages: value(e) })}
          />
          <label for="widget-suggestions">Suggested questions (one per line)</label>
          <textarea
            id="widget-suggestions"
            rows={3}
            value={form.suggestions}
            onInput={(e) => set({ suggestions: value(e) })}
            aria-describedby="widget-suggestions-help"
          />
          <p id="widget-suggestions-help" class="small muted">
            Shown as buttons before the first question; a click asks it.
          </p>
          <label for="widget-origins">Allowed origins (one per line)</label>
          <textarea
            id="widget-origins"
            rows={3}
            placeholder="https://www.example.com"
            value={form.origins}
            onInput={(e) => set({ origins: value(e) })}
            aria-describedby="widget-origins-help"
          />
          <p id="widget-origins-help" class="small muted">
            The sites whose pages may use this agent: scheme, host and port if not the default (https://shop.example,
            http://localhost:5173), no path, no wildcard. Other sites are refused.
          </p>
          <div class="row end">
            <button type="submit" class="button primary">
              Save widget
            </button>
          </div>
        </form>
        <section class="card" aria-labelledby="widget-preview-title">
          <h2 id="widget-preview-title">Preview</h2>
          <p class="small muted">Unsaved changes show here as you type; questions asked here go to the agent with your key.</p>
          <WidgetPreview agentId={agent.id} apiBase={apiBase} apiKey={api.key} look={look} />
        </section>
      </div>
      <section class="card" aria-labelledby="widget-embed-title">
        <h2 id="widget-embed-title">Embed code</h2>
        <EmbedSnippet agent={agent} uiBase={uiBase} />
      </section>
    </main>
  );
}

/** The widget itself, in its own shadow root inside a box of the page, redrawn with every change. */
function WidgetPreview(props: { agentId: string; apiBase: string; apiKey: string | null; look: AgentLook }) {
  const host = useRef<HTMLDivElement>(null);
  const container = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const element = widgetShadow(host.current as HTMLDivElement);
    container.current = element;
    return () => {
      render(null, element);
      element.remove();
    };
  }, []);
  useEffect(() => {
    if (!container.current) return;
    render(
      <WidgetView
        agentId={props.agentId}
        apiBase={props.apiBase}
        apiKey={props.apiKey}
        look={props.look}
        storage={null}
        inline
        startOpen
      />,
      container.current,
    );
  });
  return <div class="widget-preview" ref={host} />;
}

function formOf(config: Record<string, unknown>): WidgetForm {
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const list = (value: unknown) => (Array.isArray(value) ? value.filter((entry) => typeof entry === 'string').join('\n') : '');
  const initial = Array.isArray(config.initialMessages)
    ? config.initialMessages
    : text(config.initialMessage)
      ? [config.initialMessage]
      : [];
  return {
    displayName: text(config.displayName),
    primaryColor: text(config.primaryColor),
    position: config.position === 'left' ? 'left' : 'right',
    iconUrl: text(config.iconUrl),
    initialMessages: list(initial),
    suggestions: list(config.messageTemplates),
    origins: list(config.authorizedDomains),
  };
}

/**
 * The agent's `interfaceConfig` with the form's values: the fields this form does not show (the
 * reference's `theme`, `rateLimit`, ...) are kept; an empty field is removed, not saved empty.
 */
function configOf(form: WidgetForm, stored: Record<string, unknown>): Record<string, unknown> {
  const lines = (text: string) =>
    text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
  const messages = lines(form.initialMessages);
  const fields: Record<string, unknown> = {
    displayName: form.displayName.trim(),
    primaryColor: form.primaryColor.trim(),
    position: form.position,
    iconUrl: form.iconUrl.trim(),
    initialMessages: messages,
    // The reference's own widget reads the first message from here.
    initialMessage: messages[0] ?? '',
    messageTemplates: lines(form.suggestions),
    authorizedDomains: lines(form.origins),
  };
  const config: Record<string, unknown> = { ...stored };
  for (const [name, value] of Object.entries(fields)) {
    if (value === '' || (Array.isArray(value) && value.length === 0)) delete config[name];
    else config[name] = value;
  }
  return config;
}
