import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { ChatRequest, ChatUsage, FinishReason } from '../../src/ports/chat-model.js';
import { cl100kTokenizer } from '../../src/ingest/tokenizer.js';
import { isModelName, type ModelTable } from './models.js';

export type MaxTokensField = 'max_tokens' | 'max_completion_tokens';

/** The fields of a chat completion body that the adapter sets (stream flags are added by the caller). */
export type ChatBody = Omit<ChatCompletionCreateParamsNonStreaming, 'stream' | 'stream_options'>;

/**
 * The request body, with only the settings the caller gave (an absent temperature means the
 * server's default, not 0). `temperature` passes through unchanged: the API's 0..1 is a sub-range
 * of OpenAI's 0..2, as in the reference service.
 */
export function chatBody(request: ChatRequest, models: ModelTable, defaultModel: string, maxTokensField: MaxTokensField): ChatBody {
  const model = request.model === '' ? defaultModel : isModelName(request.model) ? models[request.model].id : request.model;
  const body: ChatBody = {
    model,
    messages: request.messages.map((message) => ({ role: message.role, content: message.content })),
  };
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.presencePenalty !== undefined) body.presence_penalty = request.presencePenalty;
  if (request.frequencyPenalty !== undefined) body.frequency_penalty = request.frequencyPenalty;
  if (request.maxTokens !== undefined) body[maxTokensField] = request.maxTokens;
  return body;
}

export function finishReasonOf(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'stop':
    case 'length':
    case 'content_filter':
      return reason;
    default:
      return 'other';
  }
}

/** Per-message framing tokens of the chat format, plus the reply priming, as OpenAI counts them. */
const MESSAGE_OVERHEAD = 4;
const REPLY_PRIMING = 3;

export const COUNTED_USAGE_WARNING =
  'usage: the server reported no token usage; it was counted locally with cl100k_base and is approximate';

/** Token usage counted locally, for servers that report none. */
export function countedUsage(request: ChatRequest, completion: string): ChatUsage {
  const tokenizer = cl100kTokenizer();
  const promptTokens = request.messages.reduce((sum, message) => sum + tokenizer.count(message.content) + MESSAGE_OVERHEAD, REPLY_PRIMING);
  return { promptTokens, completionTokens: tokenizer.count(completion) };
}

export function usageOf(usage: { prompt_tokens?: number; completion_tokens?: number } | null | undefined): ChatUsage | undefined {
  if (!usage || typeof usage.prompt_tokens !== 'number' || typeof usage.completion_tokens !== 'number') return undefined;
  return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens };
}
