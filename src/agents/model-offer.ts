import { RagdeskError } from '../errors.js';
import type { HostedModelName, ModelName } from '../ports/agent-key-usage-records.js';
import type { ChatModel, ChatModelNames } from '../ports/chat-model.js';

/** The hosted model names, in the order the API lists them. */
export const HOSTED_MODEL_NAMES: readonly HostedModelName[] = ['gpt_3_5_turbo', 'gpt_3_5_turbo_16k', 'gpt_4', 'gpt_4_32k'];
/** Every model name an agent may be stored with. */
export const MODEL_NAMES: readonly ModelName[] = [...HOSTED_MODEL_NAMES, 'local_extractive'];

/** What the chat adapter of this instance runs (`ragdesk.agents.models()`, `GET /api/models`). */
export interface ModelList {
  /** The model names agents and queries may name here; empty when no chat model is configured. */
  models: ModelName[];
  /** The name an agent created without `modelName` gets; null without a chat model. */
  default: ModelName | null;
  /** The chat adapter's name (e.g. `openai:gpt-4.1-mini`, `local:extractive`); null without one. */
  answerer: string | null;
}

const ASSUMED: ChatModelNames = { names: HOSTED_MODEL_NAMES, default: 'gpt_3_5_turbo' };

/** The names `chat` runs, checked once per call: an adapter answering nonsense is a bug to report. */
function offeredNames(chat: ChatModel): ChatModelNames {
  const offered = chat.models?.() ?? ASSUMED;
  const known = offered.names.every((name) => MODEL_NAMES.includes(name));
  if (offered.names.length === 0 || !known || !offered.names.includes(offered.default)) {
    throw new RagdeskError('invalid_adapter', `Chat model ${chat.name} lists models ragdesk does not know, or a default it does not list`, {
      details: { port: 'chat', names: [...offered.names], default: offered.default },
    });
  }
  return offered;
}

export function modelList(chat: ChatModel | undefined): ModelList {
  if (!chat) return { models: [], default: null, answerer: null };
  const offered = offeredNames(chat);
  return { models: [...offered.names], default: offered.default, answerer: chat.name };
}

/**
 * Refuses a model name the caller chose (on create, update or a query) that `chat` does not run:
 * answering it with another model would hide the choice. Without a chat model nothing runs, so
 * nothing is refused here (a query then fails with `invalid_adapter`).
 */
export function assertRunnable(chat: ChatModel | undefined, name: ModelName, path: string): void {
  if (!chat) return;
  const offered = offeredNames(chat);
  if (offered.names.includes(name)) return;
  throw new RagdeskError('model_not_available', `This server cannot run the model ${name}; it runs ${offered.names.join(', ')}`, {
    details: { issues: [{ path, message: `not available on this server` }], available: [...offered.names] },
  });
}

/**
 * The model a query runs on: the query's own (already checked), else the agent's, else (when the
 * agent was saved on a server with other models) the default, said in a warning.
 */
export function queryModel(
  chat: ChatModel,
  agentModel: ModelName,
  queryModelName: ModelName | undefined,
): { name: ModelName; warning?: string } {
  if (queryModelName !== undefined) return { name: queryModelName };
  const offered = offeredNames(chat);
  if (offered.names.includes(agentModel)) return { name: agentModel };
  return {
    name: offered.default,
    warning: `the agent's model ${agentModel} is not available on this server; ${offered.default} answered instead`,
  };
}
