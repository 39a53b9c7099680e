/**
 * How the widget looks for an agent, from its public view (`GET /agents/{id}` without a key): the
 * `interfaceConfig` the reference service's widget reads too. Everything is checked again here
 * (the server checks on save, but a stored config may predate that): text is only ever rendered as
 * text, and a colour is used only when the browser parses it as one.
 */
export interface AgentLook {
  displayName: string | null;
  primaryColor: string | null;
  initialMessages: string[];
  position: 'left' | 'right';
}

const DEFAULT_LOOK: AgentLook = { displayName: null, primaryColor: null, initialMessages: [], position: 'right' };

export async function fetchAgentLook(apiBase: string, agentId: string): Promise<AgentLook> {
  try {
    const response = await fetch(`${apiBase}/agents/${encodeURIComponent(agentId)}`, { headers: { accept: 'application/json' } });
    if (!response.ok) return DEFAULT_LOOK;
    const agent = (await response.json()) as { interfaceConfig?: unknown };
    return lookOf(agent.interfaceConfig);
  } catch {
    return DEFAULT_LOOK;
  }
}

function lookOf(config: unknown): AgentLook {
  if (typeof config !== 'object' || config === null) return DEFAULT_LOOK;
  const { displayName, primaryColor, initialMessages, initialMessage, position } = config as Record<string, unknown>;
  const messages = Array.isArray(initialMessages) ? initialMessages : typeof initialMessage === 'string' ? [initialMessage] : [];
  return {
    displayName: typeof displayName === 'string' && displayName.trim() ? displayName.trim().slice(0, 200) : null,
    primaryColor: typeof primaryColor === 'string' && CSS.supports('color', primaryColor) ? primaryColor : null,
    initialMessages: messages
      .filter((message): message is string => typeof message === 'string' && message.trim() !== '')
      .slice(0, 20)
      .map((message) => message.slice(0, 2_000)),
    position: position === 'left' ? 'left' : 'right',
  };
}
