import type {
  AgentRecord,
  ApiKeyRecord,
  ApiKeyScope,
  ConversationRecord,
  MessageFeedback,
  MessageRecord,
  MessageUsage,
  SourceEntry,
} from '../../src/ports/agent-key-usage-records.js';
import { withPassages } from '../../src/util/stored-sources.js';

/**
 * Rows of agents, conversations, messages and API keys, and their records, for the SQL stores
 * (SQLite and Postgres share the column names). The one difference between them is how a list of
 * strings is stored (`SqlLists`); objects (settings, contact, sources, usage) are JSON text in both.
 * A store lists columns in its own order and takes the values by name (`valuesIn`).
 */

/** How a dialect stores a list of strings. */
export interface SqlLists<List> {
  read(value: List): string[];
  write(value: readonly string[]): List;
}

/** SQLite: JSON text. */
export const JSON_TEXT_LISTS: SqlLists<string> = {
  read: (value) => JSON.parse(value) as string[],
  write: (value) => JSON.stringify(value),
};

/** Postgres: `text[]`. */
export const ARRAY_LISTS: SqlLists<string[]> = { read: (value) => value, write: (value) => [...value] };

export interface AgentRow<List> {
  id: string;
  owner_id: string | null;
  name: string;
  description: string;
  model_name: string;
  temperature: number;
  visibility: string;
  system_prompt: string | null;
  user_prompt: string | null;
  prompt_type: string | null;
  prompt_template: string | null;
  datastore_ids: List;
  allow_overrides: List;
  created_at: string;
  updated_at: string;
  handle: string | null;
  settings: string | null;
}

export interface ConversationRow {
  id: string;
  agent_id: string;
  visitor_id: string;
  created_at: string;
  updated_at: string;
  contact: string | null;
  channel: string | null;
}

export interface MessageRow {
  id: string;
  conversation_id: string;
  role: string;
  text: string;
  sources: string;
  usage: string | null;
  model: string | null;
  visitor_id: string;
  created_at: string;
  /** `good` / `bad`, with its comment and time; all null when unmarked. */
  feedback: string | null;
  feedback_comment: string | null;
  feedback_at: string | null;
}

export interface ApiKeyRow<List> {
  id: string;
  owner_id: string;
  name: string;
  hash: string;
  prefix: string;
  scopes: List;
  datastore_ids: List | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  expires_at: string | null;
}

export function toAgentRecord<List>(row: AgentRow<List>, lists: SqlLists<List>): AgentRecord {
  return {
    id: row.id,
    ownerId: row.owner_id,
    name: row.name,
    description: row.description,
    modelName: row.model_name as AgentRecord['modelName'],
    temperature: row.temperature,
    visibility: row.visibility as AgentRecord['visibility'],
    systemPrompt: row.system_prompt,
    userPrompt: row.user_prompt,
    promptType: row.prompt_type as AgentRecord['promptType'],
    promptTemplate: row.prompt_template,
    datastoreIds: lists.read(row.datastore_ids),
    allowOverrides: lists.read(row.allow_overrides) as AgentRecord['allowOverrides'],
    handle: row.handle ?? null,
    settings: row.settings ? (JSON.parse(row.settings) as AgentRecord['settings']) : {},
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function agentRow<List>(record: AgentRecord, lists: SqlLists<List>): AgentRow<List> {
  return {
    id: record.id,
    owner_id: record.ownerId ?? null,
    name: record.name,
    description: record.description,
    model_name: record.modelName,
    temperature: record.temperature,
    visibility: record.visibility,
    system_prompt: record.systemPrompt ?? null,
    user_prompt: record.userPrompt ?? null,
    prompt_type: record.promptType ?? null,
    prompt_template: record.promptTemplate ?? null,
    datastore_ids: lists.write(record.datastoreIds ?? []),
    allow_overrides: lists.write(record.allowOverrides ?? []),
    created_at: record.createdAt,
    updated_at: record.updatedAt,
    handle: record.handle ?? null,
    settings: JSON.stringify(record.settings ?? {}),
  };
}

export function toConversationRecord(row: ConversationRow): ConversationRecord {
  return {
    id: row.id,
    agentId: row.agent_id,
    visitorId: row.visitor_id,
    ...(row.contact ? { contact: JSON.parse(row.contact) as ConversationRecord['contact'] } : {}),
    ...(row.channel ? { channel: row.channel } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function conversationRow(record: ConversationRecord): ConversationRow {
  return {
    id: record.id,
    agent_id: record.agentId,
    visitor_id: record.visitorId,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
    contact: record.contact ? JSON.stringify(record.contact) : null,
    channel: record.channel ?? null,
  };
}

export function toMessageRecord(row: MessageRow): MessageRecord {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    role: row.role as MessageRecord['role'],
    text: row.text,
    sources: (JSON.parse(row.sources) as SourceEntry[]).map(withPassages),
    usage: row.usage === null ? null : (JSON.parse(row.usage) as MessageUsage),
    model: row.model,
    visitorId: row.visitor_id,
    createdAt: row.created_at,
    feedback:
      row.feedback === null
        ? null
        : { value: row.feedback as MessageFeedback['value'], comment: row.feedback_comment, createdAt: row.feedback_at ?? row.created_at },
  };
}

export function messageRow(record: MessageRecord): MessageRow {
  return {
    id: record.id,
    conversation_id: record.conversationId,
    role: record.role,
    text: record.text,
    sources: JSON.stringify(record.sources ?? []),
    usage: record.usage === null || record.usage === undefined ? null : JSON.stringify(record.usage),
    model: record.model ?? null,
    visitor_id: record.visitorId,
    created_at: record.createdAt,
    ...feedbackColumns(record.feedback ?? null),
  };
}

/** The three feedback columns of a message row. */
export function feedbackColumns(feedback: MessageFeedback | null): Pick<MessageRow, 'feedback' | 'feedback_comment' | 'feedback_at'> {
  return { feedback: feedback?.value ?? null, feedback_comment: feedback?.comment ?? null, feedback_at: feedback?.createdAt ?? null };
}

export function toApiKeyRecord<List>(row: ApiKeyRow<List>, lists: SqlLists<List>): ApiKeyRecord {
  return {
    id: row.id,
    ownerId: row.owner_id,
    name: row.name,
    hash: row.hash,
    prefix: row.prefix,
    scopes: lists.read(row.scopes) as ApiKeyScope[],
    datastoreIds: row.datastore_ids === null ? null : lists.read(row.datastore_ids),
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    // Only when set, so a key without expiry reads back exactly as it was written.
    ...(row.expires_at === null || row.expires_at === undefined ? {} : { expiresAt: row.expires_at }),
  };
}

export function apiKeyRow<List>(record: ApiKeyRecord, lists: SqlLists<List>): ApiKeyRow<List> {
  return {
    id: record.id,
    owner_id: record.ownerId,
    name: record.name,
    hash: record.hash,
    prefix: record.prefix,
    scopes: lists.write(record.scopes ?? []),
    datastore_ids: record.datastoreIds === null || record.datastoreIds === undefined ? null : lists.write(record.datastoreIds),
    created_at: record.createdAt,
    last_used_at: record.lastUsedAt ?? null,
    revoked_at: record.revokedAt ?? null,
    expires_at: record.expiresAt ?? null,
  };
}
