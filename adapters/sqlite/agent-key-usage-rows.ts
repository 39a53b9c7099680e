import type {
  AgentRecord,
  ApiKeyRecord,
  ApiKeyScope,
  ConversationRecord,
  MessageRecord,
  MessageUsage,
  SourceEntry,
} from '../../src/ports/agent-key-usage-records.js';
import type { SqliteValue } from './database.js';

/**
 * Conversions between agent-side records and rows. Column lists here and in the statements must
 * agree; keys come first (updates skip them by position). Arrays and objects are JSON text.
 */

export interface AgentRow {
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
  datastore_ids: string;
  allow_overrides: string;
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
}

export interface ApiKeyRow {
  id: string;
  owner_id: string;
  name: string;
  hash: string;
  prefix: string;
  scopes: string;
  datastore_ids: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** id, owner_id and created_at never change; they are the first columns, updates skip {@link AGENT_KEY_COUNT}. */
export const AGENT_COLUMNS =
  'id, owner_id, created_at, name, description, model_name, temperature, visibility, system_prompt, ' +
  'user_prompt, prompt_type, prompt_template, datastore_ids, updated_at, allow_overrides, handle, settings';
export const AGENT_KEY_COUNT = 3;

export const CONVERSATION_COLUMNS = 'id, agent_id, visitor_id, created_at, updated_at, contact';

export const MESSAGE_COLUMNS = 'id, conversation_id, role, text, sources, usage, model, visitor_id, created_at';

/** id, owner_id, hash, prefix, scopes, datastore_ids, created_at are fixed; updates skip {@link API_KEY_KEY_COUNT}. */
export const API_KEY_COLUMNS = 'id, owner_id, hash, prefix, scopes, datastore_ids, created_at, name, last_used_at, revoked_at';
export const API_KEY_KEY_COUNT = 7;

export function toAgentRecord(row: AgentRow): AgentRecord {
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
    datastoreIds: JSON.parse(row.datastore_ids) as string[],
    allowOverrides: JSON.parse(row.allow_overrides) as AgentRecord['allowOverrides'],
    handle: row.handle ?? null,
    settings: row.settings ? (JSON.parse(row.settings) as AgentRecord['settings']) : {},
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Values in {@link AGENT_COLUMNS} order. */
export function agentValues(record: AgentRecord): SqliteValue[] {
  return [
    record.id,
    record.ownerId ?? null,
    record.createdAt,
    record.name,
    record.description,
    record.modelName,
    record.temperature,
    record.visibility,
    record.systemPrompt ?? null,
    record.userPrompt ?? null,
    record.promptType ?? null,
    record.promptTemplate ?? null,
    JSON.stringify(record.datastoreIds ?? []),
    record.updatedAt,
    JSON.stringify(record.allowOverrides ?? []),
    record.handle ?? null,
    JSON.stringify(record.settings ?? {}),
  ];
}

export function toConversationRecord(row: ConversationRow): ConversationRecord {
  return {
    id: row.id,
    agentId: row.agent_id,
    visitorId: row.visitor_id,
    ...(row.contact ? { contact: JSON.parse(row.contact) as ConversationRecord['contact'] } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Values in {@link CONVERSATION_COLUMNS} order. */
export function conversationValues(record: ConversationRecord): SqliteValue[] {
  return [
    record.id,
    record.agentId,
    record.visitorId,
    record.createdAt,
    record.updatedAt,
    record.contact ? JSON.stringify(record.contact) : null,
  ];
}

export function toMessageRecord(row: MessageRow): MessageRecord {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    role: row.role as MessageRecord['role'],
    text: row.text,
    sources: JSON.parse(row.sources) as SourceEntry[],
    usage: row.usage === null ? null : (JSON.parse(row.usage) as MessageUsage),
    model: row.model,
    visitorId: row.visitor_id,
    createdAt: row.created_at,
  };
}

/** Values in {@link MESSAGE_COLUMNS} order. */
export function messageValues(record: MessageRecord): SqliteValue[] {
  return [
    record.id,
    record.conversationId,
    record.role,
    record.text,
    JSON.stringify(record.sources ?? []),
    record.usage === null || record.usage === undefined ? null : JSON.stringify(record.usage),
    record.model ?? null,
    record.visitorId,
    record.createdAt,
  ];
}

export function toApiKeyRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    ownerId: row.owner_id,
    name: row.name,
    hash: row.hash,
    prefix: row.prefix,
    scopes: JSON.parse(row.scopes) as ApiKeyScope[],
    datastoreIds: row.datastore_ids === null ? null : (JSON.parse(row.datastore_ids) as string[]),
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

/** Values in {@link API_KEY_COLUMNS} order. */
export function apiKeyValues(record: ApiKeyRecord): SqliteValue[] {
  return [
    record.id,
    record.ownerId,
    record.hash,
    record.prefix,
    JSON.stringify(record.scopes ?? []),
    record.datastoreIds === null || record.datastoreIds === undefined ? null : JSON.stringify(record.datastoreIds),
    record.createdAt,
    record.name,
    record.lastUsedAt ?? null,
    record.revokedAt ?? null,
  ];
}
