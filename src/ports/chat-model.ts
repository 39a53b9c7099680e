import type { ModelName } from './agent-key-usage-records.js';
import type { SpecificationVersion } from './specification.js';

/** One message of a chat exchange. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  messages: readonly ChatMessage[];
  /** Model id as the adapter understands it (the core maps API model names first). */
  model: string;
  /** 0..1, as agents and queries take it. */
  temperature?: number;
  topP?: number;
  /** -2..2 */
  presencePenalty?: number;
  /** -2..2 */
  frequencyPenalty?: number;
  /** Upper bound on generated tokens. */
  maxTokens?: number;
  signal?: AbortSignal;
  /**
   * The question and the retrieved passages the last user message was built from, in the order and
   * with the numbers the prompt shows them. Language models can ignore it (the prompt already holds
   * it); an extractive answerer answers from it without parsing the prompt.
   */
  grounding?: ChatGrounding;
}

export interface ChatGrounding {
  query: string;
  passages: readonly GroundingPassage[];
  /**
   * The agent's `restrictKnowledge`: answer only from the passages. An extractive answerer then
   * quotes only sentences that cover enough of the question; without it, a weaker match is offered.
   */
  restrictKnowledge?: boolean;
}

export interface GroundingPassage {
  /**
   * The number the prompt cites it by (`[1]` is 1): its datasource's position in the answer's
   * sources, so passages of one datasource share a number. Passages come best first.
   */
  number: number;
  /** Source shown to the model (document name, page). */
  label: string;
  text: string;
}

export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
}

/** Why generation ended. */
export type FinishReason = 'stop' | 'length' | 'content_filter' | 'error' | 'other';

export interface ChatResult {
  text: string;
  usage: ChatUsage;
  finishReason: FinishReason;
  /** Settings the model ignored (e.g. penalties on a model without them), reported instead of failing. */
  warnings: string[];
}

/** Stream parts: text deltas in order, then exactly one `finish`. */
export type ChatStreamPart =
  { type: 'delta'; text: string } | { type: 'finish'; usage: ChatUsage; finishReason: FinishReason; warnings: string[] };

export interface ChatModel {
  /** Adapter name plus default model, for labelling responses, e.g. `openai:gpt-4o-mini`. */
  readonly name: string;
  /** The port contract this adapter implements; `createRagdesk` accepts only `'v1'`. */
  readonly specificationVersion: SpecificationVersion;
  generate(request: ChatRequest): Promise<ChatResult>;
  /** Async iterable of deltas then one finish part. Aborting `signal` stops the upstream call. */
  stream(request: ChatRequest): AsyncIterable<ChatStreamPart>;
  /**
   * Maps a API model name (an agent's `modelName`) to the id this adapter sends as
   * `ChatRequest.model` and the context window that bounds prompt budgets. Optional: an adapter
   * with one fixed model (the offline answerer) omits it and the core uses the documented windows.
   */
  resolveModel?(name: ModelName): { id: string; contextWindow: number };
  /**
   * Optional: the API model names this adapter runs, and the one an agent gets when it names none.
   * The core lists them (`ragdesk.agents.models()`, `GET /api/models`), refuses to save an agent
   * or run a query naming another (`model_not_available`), and answers an agent stored with
   * another under the default, with a warning. Without it the adapter is taken to run the four
   * hosted names, `gpt_3_5_turbo` the default.
   */
  models?(): ChatModelNames;
}

/** What `ChatModel.models()` answers. */
export interface ChatModelNames {
  /** At least one name; `default` is among them. */
  names: readonly ModelName[];
  default: ModelName;
}
