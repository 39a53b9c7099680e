import { z } from 'zod';
import { parseInput, type Agent, type AgentQueryInput } from '../../../src/index.js';
import { invalid, splitTurns, type ClientTurn } from '../chat-turns.js';

const contentPart = z.looseObject({ type: z.string().max(100), text: z.unknown().optional() });
const message = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z
    .union([z.string(), z.array(contentPart).max(100)])
    .nullable()
    .optional(),
});

/**
 * `POST /v1/chat/completions` as OpenAI clients send it. Loose on purpose: clients add fields of
 * their own and newer API versions add more; the ones ragdesk does not use are named in
 * `ragdesk.warnings` rather than refused. `temperature` is 0..1 as on every agent (OpenAI's 1..2
 * has no counterpart here), `n` only 1.
 */
export const chatCompletionRequestSchema = z.looseObject({
  model: z.string().min(1).max(200),
  messages: z.array(message).min(1).max(1_000),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  temperature: z.number().min(0).max(1).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  max_tokens: z.int().min(1).max(1_000_000).nullable().optional(),
  max_completion_tokens: z.int().min(1).max(1_000_000).nullable().optional(),
  presence_penalty: z.number().min(-2).max(2).nullable().optional(),
  frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
  n: z.literal(1).nullable().optional(),
});

type ChatCompletionRequest = z.output<typeof chatCompletionRequestSchema>;

/** Fields used here, or labels with nothing to apply (`user`, `metadata`, `store`): never warned about. */
const QUIET_FIELDS = new Set([
  ...Object.keys(chatCompletionRequestSchema.shape),
  'user',
  'metadata',
  'store',
  'service_tier',
  'safety_identifier',
  'prompt_cache_key',
]);

/** The sampling fields and the agent query fields (and allowOverrides names) they become. */
const SAMPLING = [
  ['temperature', 'temperature'],
  ['top_p', 'topP'],
  ['max_tokens', 'maxTokens'],
  ['max_completion_tokens', 'maxTokens'],
  ['presence_penalty', 'presencePenalty'],
  ['frequency_penalty', 'frequencyPenalty'],
] as const;

export interface ChatCompletionCall {
  /** The agent query body (question and sampling settings). */
  query: AgentQueryInput;
  history: ReturnType<typeof splitTurns>['history'];
  stream: boolean;
  includeUsage: boolean;
  warnings: string[];
}

export function parseChatCompletionRequest(body: Record<string, unknown>): ChatCompletionRequest {
  return parseInput(chatCompletionRequestSchema, body, 'chat completion request');
}

/**
 * The agent query a request asks for. A visitor's sampling settings apply only where the agent's
 * `allowOverrides` lists them; the others are left out with a warning instead of the 403 of the
 * agent query route, because OpenAI clients send their defaults with every request.
 */
export function toAgentCall(request: ChatCompletionRequest, agent: Agent, caller: 'owner' | 'visitor'): ChatCompletionCall {
  const turns: ClientTurn[] = request.messages.map((entry, index) => ({
    role: entry.role,
    text: textOf(entry.content, `messages[${index}].content`),
    path: `messages[${index}]`,
  }));
  const { query, history, warnings } = splitTurns(turns);
  const last = request.messages.at(-1)?.content;
  if (Array.isArray(last) && last.some((part) => part.type !== 'text')) {
    warnings.push('only the text parts of the question were read (images, audio and files are not)');
  }
  const unknown = Object.keys(request).filter((field) => !QUIET_FIELDS.has(field));
  if (unknown.length > 0) warnings.push(`ignored fields with no meaning here: ${unknown.slice(0, 20).join(', ')}`);

  const settings: Record<string, number> = {};
  const refused: string[] = [];
  for (const [field, name] of SAMPLING) {
    const value = request[field];
    if (value === null || value === undefined) continue;
    if (caller === 'visitor' && !agent.allowOverrides.includes(name)) refused.push(field);
    else settings[name] = value;
  }
  if (refused.length > 0)
    warnings.push(`ignored ${refused.join(', ')}: only the agent's owner may set ${refused.length === 1 ? 'it' : 'them'}`);
  return {
    query: { query, ...settings },
    history,
    stream: request.stream === true,
    includeUsage: request.stream_options?.include_usage === true,
    warnings,
  };
}

/** A message's text: the string, or its text parts joined by newlines (other parts skipped). */
function textOf(content: ChatCompletionRequest['messages'][number]['content'], path: string): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  const texts: string[] = [];
  content.forEach((part, index) => {
    if (part.type !== 'text') return;
    if (typeof part.text !== 'string') throw invalid(`${path}[${index}].text`, 'a text part needs its text as a string');
    texts.push(part.text);
  });
  return texts.join('\n');
}
