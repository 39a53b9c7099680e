import type {
  AgentRecord,
  ApiKeyRecord,
  ApiKeyScope,
  ConversationRecord,
  MessageRecord,
  MessageUsage,
  SourceEntry,
} from '../../src/ports/agent-key-usage-records.js';

/** Conversions between agent-side records and rows. Column lists here and in the statements must agree. */

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
  datastore_ids: string[];
  allow_overrides: string[];
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
  scopes: string[];
  datastore_ids: string[] | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export const AGENT_COLUMNS = [
  'id',
  'owner_id',
  'name',
  'description',
  'model_name',
  'temperature',
  'visibility',
  'system_prompt',
  'user_prompt',
  'prompt_type',
  'prompt_template',
  'datastore_ids',
  'created_at',
  'updated_at',
  'allow_overrides',
  'handle',
  'settings',
] as const;

export const CONVERSATION_COLUMNS = ['id', 'agent_id', 'visitor_id', 'created_at', 'updated_at', 'contact'] as const;

export const MESSAGE_COLUMNS = ['id', 'conversation_id', 'role', 'text', 'sources', 'usage', 'model', 'visitor_id', 'created_at'] as const;

export const API_KEY_COLUMNS = [
  'id',
  'owner_id',
  'name',
  'hash',
  'prefix',
  'scopes',
  'datastore_ids',
  'created_at',
  'last_used_at',
  'revoked_at',
] as const;

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
    datastoreIds: row.datastore_ids,
    allowOverrides: row.allow_overrides as AgentRecord['allowOverrides'],
    handle: row.handle ?? null,
    settings: row.settings ? (JSON.parse(row.settings) as AgentRecord['settings']) : {},
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Values in {@link AGENT_COLUMNS} order. */
export function agentValues(record: AgentRecord): unknown[] {
  return [
    record.id,
    record.ownerId ?? null,
    record.name,
    record.description,
    record.modelName,
    record.temperature,
    record.visibility,
    record.systemPrompt,
    record.userPrompt,
    record.promptType,
    record.promptTemplate,
    [...record.datastoreIds],
    record.createdAt,
    record.updatedAt,
    [...(record.allowOverrides ?? [])],
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
export function messageValues(message: MessageRecord): unknown[] {
  return [
    message.id,
    message.conversationId,
    message.role,
    message.text,
    JSON.stringify(message.sources ?? []),
    message.usage === null || message.usage === undefined ? null : JSON.stringify(message.usage),
    message.model,
    message.visitorId,
    message.createdAt,
  ];
}

export function toApiKeyRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    ownerId: row.owner_id,
    name: row.name,
    hash: row.hash,
    prefix: row.prefix,
    scopes: row.scopes as ApiKeyScope[],
    datastoreIds: row.datastore_ids,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

/** Values in {@link API_KEY_COLUMNS} order. */
export function apiKeyValues(record: ApiKeyRecord): unknown[] {
  return [
    record.id,
    record.ownerId,
    record.name,
    record.hash,
    record.prefix,
    [...record.scopes],
    record.datastoreIds === null ? null : [...record.datastoreIds],
    record.createdAt,
    record.lastUsedAt,
    record.revokedAt,
  ];
}
