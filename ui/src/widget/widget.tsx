import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { browserStorage } from '../conversation-history.js';
import { fetchAgentLook, lookOf, type AgentLook } from './agent-look.js';
import { WidgetView, widgetShadow } from './widget-view.js';

/**
 * `<script src="https://host/widget.js" data-agent-id="…" defer></script>`: a chat bubble for a
 * public agent, drawn in a shadow root. The API is the one the script came from (`data-api-base`
 * overrides its path); the agent must list the site among its allowed origins
 * (`interfaceConfig.authorizedDomains`), or the server's `--cors` allow it. The agent's
 * `interfaceConfig` sets the colour, title, icon, first messages, suggested questions and side;
 * `data-title`, `data-primary-color` and `data-position` win over it.
 */
const script = document.currentScript as HTMLScriptElement | null;
const agentId = script?.dataset.agentId;
if (script && agentId) {
  const origin = new URL(script.src, location.href).origin;
  const apiBase = origin + (script.dataset.apiBase ?? '/api').replace(/\/$/, '');
  const { title, primaryColor, position } = script.dataset;
  const mount = () => {
    const host = document.createElement('div');
    host.setAttribute('data-ragdesk-widget', agentId);
    document.body.append(host);
    render(<Widget agentId={agentId} apiBase={apiBase} title={title} overrides={{ primaryColor, position }} />, widgetShadow(host));
  };
  if (document.body) mount();
  else addEventListener('DOMContentLoaded', mount, { once: true });
}

function Widget(props: { agentId: string; apiBase: string; title: string | undefined; overrides: Record<string, string | undefined> }) {
  const { agentId, apiBase, overrides } = props;
  const [look, setLook] = useState<AgentLook | null>(null);
  useEffect(() => {
    void fetchAgentLook(apiBase, agentId).then((fetched) => {
      // Attributes go through the same checks as the agent's own settings.
      const given = lookOf(overrides);
      setLook({
        ...fetched,
        ...(given.primaryColor ? { primaryColor: given.primaryColor, primaryText: given.primaryText } : {}),
        ...(overrides.position ? { position: given.position } : {}),
      });
    });
  }, [apiBase, agentId]);
  // The site's storage, per agent: the conversation comes back when the visitor reloads the page.
  const [storage] = useState(browserStorage);
  return <WidgetView agentId={agentId} apiBase={apiBase} apiKey={null} look={look} title={props.title} storage={storage} />;
}
