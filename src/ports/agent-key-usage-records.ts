/**
 * Records of agents, conversations, API keys and usage counters. Plain data, like `records.ts`.
 * Timestamps are ISO-8601 strings in UTC.
 */

/** The hosted model names of the API; a language-model adapter maps them to its own model ids. */
export type HostedModelName = 'gpt_3_5_turbo' | 'gpt_3_5_turbo_16k' | 'gpt_4' | 'gpt_4_32k';

/**
 * The model names an agent is configured with: the hosted ones, and `local_extractive` for the
 * offline answerer of `ragdesk/local` (no language model). Which of them a server runs is its chat
 * adapter's `ChatModel.models()`.
 */
export type ModelName = HostedModelName | 'local_extractive';

/** @deprecated Renamed `ModelName`; this alias goes in the next minor version. */
export type SpecModelName = ModelName;

/** Query settings an agent may let callers who do not own it change (`AgentRecord.allowOverrides`). */
export type OverridableField =
  | 'modelName'
  | 'systemPrompt'
  | 'userPrompt'
  | 'promptType'
  | 'promptTemplate'
  | 'temperature'
  | 'maxTokens'
  | 'topP'
  | 'presencePenalty'
  | 'frequencyPenalty';

/** Deprecated prompt presets of the API, mapped onto systemPrompt / userPrompt by the core. */
export type PromptType = 'raw' | 'customer_support';

export interface AgentRecord {
  id: string;
  /** Who owns the agent (API keys of this owner see it); null for single-tenant library use. */
  ownerId: string | null;
  name: string;
  description: string;
  modelName: ModelName;
  /** 0..1 */
  temperature: number;
  visibility: 'public' | 'private';
  systemPrompt: string | null;
  /** Template with `{query}` and `{context}` placeholders. */
  userPrompt: string | null;
  promptType: PromptType | null;
  promptTemplate: string | null;
  /**
   * Query settings (`modelName`, `systemPrompt`, `temperature`, ...) that callers who do not own
   * the agent may change per query; empty by default, so a public agent answers as configured.
   */
  allowOverrides: OverridableField[];
  /** Datastores the agent retrieves from, in the order given. */
  datastoreIds: string[];
  /** Short unique name (`@handle` in paths); null when the agent has none. */
  handle: string | null;
  /** The reference service's agent settings; an absent key means its default. */
  settings: AgentSettings;
  createdAt: string;
  updatedAt: string;
}

/**
 * Agent settings of the reference service. `includeSources`, `restrictKnowledge` and `useMarkdown`
 * (each true unless set to false, as in the reference) change answers; the others are stored for
 * the clients that read them back.
 */
export interface AgentSettings {
  includeSources?: boolean;
  restrictKnowledge?: boolean;
  useMarkdown?: boolean;
  useLanguageDetection?: boolean;
  iconUrl?: string | null;
  interfaceConfig?: Record<string, unknown> | null;
  prompt?: string | null;
  /** A public agent answers visitors on the OpenAI-compatible routes (off by default). */
  openaiCompatPublic?: boolean;
  /** Visitors may send `context` with a query (it reaches the model as user-side text); absent means no. */
  allowVisitorContext?: boolean;
  /** Visitors may read this public agent's conversations by id without the `visitorId`; absent means no. */
  allowConversationReadById?: boolean;
  /** Rerank this many first-stage passages on every query of the agent (needs a reranker). */
  rerankTopN?: number | null;
}

export interface ConversationRecord {
  id: string;
  agentId: string;
  visitorId: string;
  /** Who the visitor said they are (the reference clients' `contact`), when a first message gave it. */
  contact?: ConversationContact;
  /** Where the first message came from (the reference clients' `channel`: `website`, `dashboard`, ...), when given. */
  channel?: string;
  createdAt: string;
  updatedAt: string;
}

/** Contact details a chat client sent with the first message of a conversation. */
export interface ConversationContact {
  email?: string;
  phoneNumber?: string;
  firstName?: string;
  lastName?: string;
  userId?: string;
}

/** One passage of a datasource that an answer was given, as its source entry lists it. */
export interface SourcePassage {
  chunk_id: string;
  page_number: number | null;
  /** The excerpt given to the model. */
  text: string;
  score: number;
}

/**
 * The API's "Source entry": one per datasource used for an answer, best first. The entry's own
 * `chunk_id`, `page_number`, `score` and `text` are those of its best passage; `passages` lists
 * every passage of the datasource the model was given, best first. An answer's `[n]` cites
 * entry n (`sources[n - 1]`).
 */
export interface SourceEntry {
  chunk_id: string;
  datasource_id: string;
  datasource_name: string;
  datasource_type: string;
  source_url: string | null;
  custom_id: string | null;
  mime_type: string | null;
  page_number: number | null;
  total_pages: number | null;
  score: number;
  /** The excerpt given to the model. */
  text: string;
  passages: SourcePassage[];
}

export interface MessageUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** In the currency of the configured price table (USD by default). */
  cost: number;
}

export interface MessageRecord {
  id: string;
  conversationId: string;
  role: 'user' | 'assistant';
  text: string;
  /** Sources of an assistant message; empty for user messages. */
  sources: SourceEntry[];
  /** Token usage of an assistant message; null for user messages. */
  usage: MessageUsage | null;
  /** Chat adapter and model that wrote an assistant message; null for user messages. */
  model: string | null;
  visitorId: string;
  createdAt: string;
  /** A reader's mark on an assistant message; absent or null when nobody marked it. */
  feedback?: MessageFeedback | null;
}

/** `good` or `bad`, with an optional comment, set by someone who may read the conversation. */
export interface MessageFeedback {
  value: 'good' | 'bad';
  comment: string | null;
  createdAt: string;
}

/** What an API key may do. `admin` implies every other scope. */
export type ApiKeyScope = 'read' | 'write' | 'query' | 'admin';

export interface ApiKeyRecord {
  id: string;
  ownerId: string;
  /** Label given at creation, for listing. */
  name: string;
  /**
   * Digest of the secret, never the secret: `hmac-sha256:<salt hex>:<digest hex>` with a per-key
   * random salt, or (keys created before that format) the plain SHA-256 hex of the secret.
   */
  hash: string;
  /** First characters of the secret, shown in listings so a user can tell keys apart. */
  prefix: string;
  scopes: ApiKeyScope[];
  /** When set, the key may only touch these datastores (and agents reading only them). */
  datastoreIds: string[] | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** After this the key is refused; absent or null: it does not expire. */
  expiresAt?: string | null;
}

/** Atomic check-and-add on a usage counter (e.g. queries per owner per day). */
export interface UsageConsumption {
  /** Whose counter, e.g. an owner id. */
  subject: string;
  /** What is counted, e.g. `agent_queries`. */
  metric: string;
  /** Period bucket, e.g. `2026-11-22` for a daily limit. */
  period: string;
  amount: number;
  /** The add happens only when `used + amount <= limit`; omit for no limit. */
  limit?: number;
}
