/**
 * How the widget looks for an agent, from its public view (`GET /agents/{id}` without a key): the
 * `interfaceConfig` the reference service's widget reads too. Everything is checked again here
 * (the server checks on save, but a stored config may predate that): text is only ever rendered as
 * text, a colour is used only when the browser parses it as one, and an icon only when it is an
 * http(s) or data:image address (drawn with <img>, which runs no script).
 */
export interface AgentLook {
  /** The agent's own name (null when the agent is not public or could not be read). */
  name: string | null;
  /** The agent's description, shown as a greeting when it has no first messages. */
  description: string | null;
  displayName: string | null;
  primaryColor: string | null;
  /** Text colour on `primaryColor`: whichever of near-black and white contrasts more. */
  primaryText: string | null;
  initialMessages: string[];
  /** Questions offered as buttons before the first question (`messageTemplates`). */
  suggestions: string[];
  iconUrl: string | null;
  position: 'left' | 'right';
  /** The server refused this page's site (`origin_not_allowed`): the agent does not list it. */
  refused: boolean;
}

const DEFAULT_LOOK: AgentLook = {
  name: null,
  description: null,
  displayName: null,
  primaryColor: null,
  primaryText: null,
  initialMessages: [],
  suggestions: [],
  iconUrl: null,
  position: 'right',
  refused: false,
};

const IMAGE_URL = /^(https?:\/\/|data:image\/(png|jpeg|gif|webp|svg\+xml|avif);)/i;

export async function fetchAgentLook(apiBase: string, agentId: string): Promise<AgentLook> {
  try {
    const response = await fetch(`${apiBase}/agents/${encodeURIComponent(agentId)}`, { headers: { accept: 'application/json' } });
    const agent = (await response.json().catch(() => ({}))) as Record<string, unknown> & { error?: { code?: unknown } };
    // The server answers a refused site's 403 with CORS headers so that this code can be read (adapters/http/agent-origins.ts).
    if (response.status === 403 && agent.error?.code === 'origin_not_allowed') return { ...DEFAULT_LOOK, refused: true };
    if (!response.ok) return DEFAULT_LOOK;
    return {
      ...lookOf(agent.interfaceConfig, agent.iconUrl),
      name: text(agent.name, 200),
      description: text(agent.description, 2_000),
    };
  } catch {
    return DEFAULT_LOOK;
  }
}

/** The look an `interfaceConfig` gives (also the console's live preview of unsaved settings). */
export function lookOf(config: unknown, agentIconUrl?: unknown): AgentLook {
  const fields = typeof config === 'object' && config !== null ? (config as Record<string, unknown>) : {};
  const { displayName, primaryColor, initialMessages, initialMessage, messageTemplates, iconUrl, position } = fields;
  const messages = Array.isArray(initialMessages) ? initialMessages : typeof initialMessage === 'string' ? [initialMessage] : [];
  const colour = typeof primaryColor === 'string' && CSS.supports('color', primaryColor) ? primaryColor : null;
  const icon = [iconUrl, agentIconUrl].find((url): url is string => typeof url === 'string' && IMAGE_URL.test(url));
  return {
    ...DEFAULT_LOOK,
    displayName: text(displayName, 200),
    primaryColor: colour,
    primaryText: colour === null ? null : textOn(colour),
    initialMessages: lines(messages, 2_000),
    suggestions: lines(Array.isArray(messageTemplates) ? messageTemplates : [], 500),
    iconUrl: icon ?? null,
    position: position === 'left' ? 'left' : 'right',
  };
}

function text(value: unknown, max: number): string | null {
  return typeof value === 'string' && value.trim() ? value.trim().slice(0, max) : null;
}

function lines(values: unknown[], max: number): string[] {
  return values
    .filter((value): value is string => typeof value === 'string' && value.trim() !== '')
    .slice(0, 20)
    .map((value) => value.slice(0, max));
}

/** The browser normalises any colour it parses to `#rrggbb` or `rgba(...)` through a canvas's fillStyle. */
function textOn(colour: string): string {
  const context = document.createElement('canvas').getContext('2d');
  if (!context) return '#ffffff';
  context.fillStyle = colour;
  const value = String(context.fillStyle);
  const channels = value.startsWith('#')
    ? [1, 3, 5].map((at) => parseInt(value.slice(at, at + 2), 16))
    : (value.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number);
  const [r = 0, g = 0, b = 0] = channels.map((channel) => {
    const c = channel / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  // Contrast with white (1.05 / (L + 0.05)) against contrast with #111 (L ≈ 0.0056).
  return 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.0556 ? '#ffffff' : '#111111';
}
