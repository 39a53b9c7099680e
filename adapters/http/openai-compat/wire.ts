import type { Agent, AgentResponse, FinishReason } from '../../../src/index.js';

/**
 * The OpenAI Chat Completions wire shapes ragdesk answers with. Everything ragdesk adds (sources,
 * conversation, warnings) is in one extra field, `ragdesk`, which OpenAI clients pass through
 * untouched (the `openai` SDK returns the parsed JSON as it came).
 */

export interface RagdeskExtra {
  sources: AgentResponse['sources'];
  conversationId: string;
  visitorId: string;
  messageId: string;
  /** The chat adapter and model that answered (`openai:gpt-4o-mini`, `local:extractive`). */
  model: string;
  cost: number;
  warnings: string[];
}

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** Identifies one answer across its chunks; `created` is in seconds, as OpenAI's. */
export interface CompletionIdentity {
  id: string;
  created: number;
  /** The `model` the client asked for (the agent id or handle), echoed as OpenAI servers do. */
  model: string;
}

function extraOf(response: AgentResponse, warnings: readonly string[]): RagdeskExtra {
  return {
    sources: response.sources,
    conversationId: response.conversationId,
    visitorId: response.visitorId,
    messageId: response.messageId,
    model: response.model,
    cost: response.usage.cost,
    warnings: [...warnings, ...response.warnings],
  };
}

function usageOf(response: AgentResponse): Usage {
  const { promptTokens, completionTokens } = response.usage;
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

/** OpenAI has no `error`/`other` finish reasons; those answers did end, so they read as `stop`. */
function finishReasonOf(reason: FinishReason): 'stop' | 'length' | 'content_filter' {
  return reason === 'length' || reason === 'content_filter' ? reason : 'stop';
}

export function completionBody(identity: CompletionIdentity, response: AgentResponse, warnings: readonly string[]) {
  return {
    id: identity.id,
    object: 'chat.completion' as const,
    created: identity.created,
    model: identity.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant' as const, content: response.answer, refusal: null },
        logprobs: null,
        finish_reason: finishReasonOf(response.finishReason),
      },
    ],
    usage: usageOf(response),
    system_fingerprint: null,
    ragdesk: extraOf(response, warnings),
  };
}

/** The chunks of a streamed answer; with `includeUsage` every chunk carries `usage` (null but the last). */
export class ChunkWriter {
  constructor(
    private readonly identity: CompletionIdentity,
    private readonly includeUsage: boolean,
  ) {}

  private chunk(choices: unknown[], extra: Record<string, unknown> = {}): string {
    const body = {
      id: this.identity.id,
      object: 'chat.completion.chunk',
      created: this.identity.created,
      model: this.identity.model,
      system_fingerprint: null,
      choices,
      ...(this.includeUsage ? { usage: null } : {}),
      ...extra,
    };
    return `data: ${JSON.stringify(body)}\n\n`;
  }

  /** The first chunk names the role, as OpenAI's does. */
  start(): string {
    return this.chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]);
  }

  delta(text: string): string {
    return this.chunk([{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }]);
  }

  /** The chunk with the finish reason (and ragdesk's extra field), then the usage chunk when asked for. */
  finish(response: AgentResponse, warnings: readonly string[]): string[] {
    const last = this.chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReasonOf(response.finishReason) }], {
      ragdesk: extraOf(response, warnings),
    });
    return this.includeUsage ? [last, this.chunk([], { usage: usageOf(response) })] : [last];
  }
}

/** One agent as an OpenAI model: `@handle` when it has one (unambiguous), else its id. */
export function modelOf(agent: Agent) {
  return {
    id: agent.handle ? `@${agent.handle}` : agent.id,
    object: 'model' as const,
    created: Math.floor(Date.parse(agent.createdAt) / 1000),
    owned_by: 'ragdesk',
    name: agent.name,
    description: agent.description,
    agent_id: agent.id,
  };
}
