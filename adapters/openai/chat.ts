import type { HostedModelName } from '../../src/ports/agent-key-usage-records.js';
import type { ChatModel, ChatRequest, ChatResult, ChatStreamPart } from '../../src/ports/chat-model.js';
import { z } from 'zod';
import { callWithRetries } from './call.js';
import { chatBody, COUNTED_USAGE_WARNING, countedUsage, finishReasonOf, usageOf, type MaxTokensField } from './chat-request.js';
import { streamChat } from './chat-stream.js';
import { checkOptions, connect, type OpenAIConnectionOptions } from './connection.js';
import { HOSTED_NAMES, modelTable, tableEntry, type ModelEntry } from './models.js';

export interface OpenAIChatOptions extends OpenAIConnectionOptions {
  /** API model name → model id and context window, entry by entry (default `DEFAULT_MODEL_TABLE`). */
  models?: Partial<Record<HostedModelName, ModelEntry>>;
  /** Model used when a request names none; also part of `name`. Default: the `gpt_3_5_turbo` entry. */
  model?: string;
  /** First part of `name` (default `openai`), e.g. `ollama` so answers say where they came from. */
  label?: string;
  /**
   * Body field for `maxTokens`: `max_tokens` (default; every compatible server reads it) or
   * `max_completion_tokens` (OpenAI's newer name, required by its reasoning models).
   */
  maxTokensField?: MaxTokensField;
  /**
   * Ask streams for a final usage chunk (`stream_options.include_usage`, default true). Turn off
   * only for a server that rejects the field; usage is then counted locally (with a warning).
   */
  streamUsage?: boolean;
}

const modelEntrySchema = z.object({ id: z.string().min(1), contextWindow: z.number().int().positive() });
const chatSchema = z.object({
  model: z.string().min(1).optional(),
  label: z.string().min(1).optional(),
  maxTokensField: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
  streamUsage: z.boolean().optional(),
  models: z.partialRecord(z.enum(['gpt_3_5_turbo', 'gpt_3_5_turbo_16k', 'gpt_4', 'gpt_4_32k']), modelEntrySchema).optional(),
});

/** A `ChatModel` over the chat completions API of OpenAI or any compatible server. */
export function openaiChat(options: OpenAIChatOptions = {}): ChatModel {
  const { models, model, label, maxTokensField, streamUsage } = options;
  checkOptions(chatSchema, { models, model, label, maxTokensField, streamUsage }, 'openaiChat');
  const connection = connect(options, 'openaiChat');
  const table = modelTable(models);
  const defaultModel = model ?? table.gpt_3_5_turbo.id;
  const field = maxTokensField ?? 'max_tokens';
  const name = `${label ?? 'openai'}:${defaultModel}`;

  return {
    name,
    specificationVersion: 'v1',
    resolveModel: (name) => ({ ...tableEntry(table, name) }),
    // Every hosted name maps to a model of this server (through `models` or the default table).
    models: () => ({ names: HOSTED_NAMES, default: 'gpt_3_5_turbo' }),

    async generate(request: ChatRequest): Promise<ChatResult> {
      const body = chatBody(request, table, defaultModel, field);
      const completion = await callWithRetries(connection, request.signal, name, (signal) =>
        connection.client.chat.completions.create({ ...body, stream: false }, { signal, maxRetries: 0 }),
      );
      const choice = completion.choices?.[0];
      const text = choice?.message?.content ?? '';
      const warnings: string[] = [];
      const refusal = choice?.message?.refusal;
      if (refusal) warnings.push(`refusal: ${refusal}`);
      const usage = usageOf(completion.usage);
      if (!usage) warnings.push(COUNTED_USAGE_WARNING);
      return {
        text,
        usage: usage ?? countedUsage(request, text),
        finishReason: refusal ? 'content_filter' : finishReasonOf(choice?.finish_reason),
        warnings,
      };
    },

    stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
      const body = chatBody(request, table, defaultModel, field);
      return streamChat({ connection, streamUsage: streamUsage ?? true, what: name }, request, body);
    },
  };
}
