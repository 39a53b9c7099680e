/**
 * How the widget looks for an agent, from its public view (`GET /agents/{id}` without a key): the
 * `interfaceConfig` the reference service's widget reads too. Everything is checked again here
 * (the server checks on save, but a stored config may predate that): text is only ever rendered as
 * text, and a colour is used only when the browser parses it as one.
 */
export interface AgentLook {
  /** The agent's own name (null when the agent is not public or could not be read). */
  name: string | null;
  /** The agent's description, shown as a greeting when it has no first messages. */
  description: string | null;
  displayName: string | null;
  primaryColor: string | null;
  initialMessages: string[];
  position: 'left' | 'right';
}

const DEFAULT_LOOK: AgentLook = {
  name: null,
  description: null,
  displayName: null,
  primaryColor: null,
  initialMessages: [],
  position: 'right',
};

export async function fetchAgentLook(apiBase: string, agentId: string): Promise<AgentLook> {
  try {
    const response = await fetch(`${apiBase}/agents/${encodeURIComponent(agentId)}`, { headers: { accept: 'application/json' } });
    if (!response.ok) return DEFAULT_LOOK;
    const agent = (await response.json()) as { name?: unknown; description?: unknown; interfaceConfig?: unknown };
    return {
      ...lookOf(agent.interfaceConfig),
      name: typeof agent.name === 'string' && agent.name.trim() ? agent.name.trim().slice(0, 200) : null,
      description: typeof agent.description === 'string' && agent.description.trim() ? agent.description.trim().slice(0, 2_000) : null,
    };
  } catch {
    return DEFAULT_LOOK;
  }
}

function lookOf(config: unknown): AgentLook {
  if (typeof config !== 'object' || config === null) return DEFAULT_LOOK;
  const { displayName, primaryColor, initialMessages, initialMessage, position } = config as Record<string, unknown>;
  const messages = Array.isArray(initialMessages) ? initialMessages : typeof initialMessage === 'string' ? [initialMessage] : [];
  return {
    name: null,
    description: null,
    displayName: typeof displayName === 'string' && displayName.trim() ? displayName.trim().slice(0, 200) : null,
    primaryColor: typeof primaryColor === 'string' && CSS.supports('color', primaryColor) ? primaryColor : null,
    initialMessages: messages
      .filter((message): message is string => typeof message === 'string' && message.trim() !== '')
      .slice(0, 20)
      .map((message) => message.slice(0, 2_000)),
    position: position === 'left' ? 'left' : 'right',
  };
}
