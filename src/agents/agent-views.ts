import type { Agent } from './agent.js';
import { includesSources, restrictsKnowledge, usesMarkdown } from './agent-settings.js';

/**
 * The agent settings as the reference service's clients read them: at the top level of the agent,
 * each with the value in effect (an absent setting is its default). The values come from the same
 * checks the query flow uses, so what a widget shows matches how answers are made.
 */
export interface AgentDisplaySettings {
  includeSources: boolean;
  restrictKnowledge: boolean;
  useMarkdown: boolean;
  useLanguageDetection: boolean;
  iconUrl: string | null;
  interfaceConfig: Record<string, unknown> | null;
}

export function agentDisplaySettings(agent: Agent): AgentDisplaySettings {
  const { settings } = agent;
  return {
    includeSources: includesSources(agent),
    restrictKnowledge: restrictsKnowledge(agent),
    useMarkdown: usesMarkdown(agent),
    useLanguageDetection: settings.useLanguageDetection === true,
    iconUrl: settings.iconUrl ?? null,
    interfaceConfig: settings.interfaceConfig ?? null,
  };
}

/**
 * What anyone may read of a public agent without a key: what a chat widget needs to draw it. Never
 * its prompts, model, sampling settings, datastores or owner.
 */
export interface PublicAgentView extends Omit<AgentDisplaySettings, 'restrictKnowledge'> {
  id: string;
  name: string;
  description: string;
  handle: string | null;
  visibility: 'public';
}

export function publicAgentView(agent: Agent & { visibility: 'public' }): PublicAgentView {
  const { restrictKnowledge: _hidden, ...display } = agentDisplaySettings(agent);
  return {
    id: agent.id,
    name: agent.name,
    description: agent.description,
    handle: agent.handle,
    visibility: agent.visibility,
    ...display,
  };
}
