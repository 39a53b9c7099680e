import type { AgentRecord, ApiKeyRecord, ConversationRecord, MessageRecord } from '../../src/ports/agent-key-usage-records.js';
import {
  agentRow,
  apiKeyRow,
  ARRAY_LISTS,
  conversationRow,
  messageRow,
  toAgentRecord as agentRecordOf,
  toApiKeyRecord as apiKeyRecordOf,
  type AgentRow as SqlAgentRow,
  type ApiKeyRow as SqlApiKeyRow,
} from '../kit/agent-key-usage-rows.js';
import { valuesIn } from '../kit/record-rows.js';

/**
 * Agent, conversation, message and API key rows of the Postgres store: the kit's shared mapping,
 * with lists as `text[]`. Column lists here and in the statements must agree.
 */

export { toConversationRecord, toMessageRecord, type ConversationRow, type MessageRow } from '../kit/agent-key-usage-rows.js';
export type AgentRow = SqlAgentRow<string[]>;
export type ApiKeyRow = SqlApiKeyRow<string[]>;

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

export const CONVERSATION_COLUMNS = ['id', 'agent_id', 'visitor_id', 'created_at', 'updated_at', 'contact', 'channel'] as const;

export const MESSAGE_COLUMNS = [
  'id',
  'conversation_id',
  'role',
  'text',
  'sources',
  'usage',
  'model',
  'visitor_id',
  'created_at',
  'feedback',
  'feedback_comment',
  'feedback_at',
] as const;

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
  'expires_at',
] as const;

export const toAgentRecord = (row: AgentRow): AgentRecord => agentRecordOf(row, ARRAY_LISTS);
export const toApiKeyRecord = (row: ApiKeyRow): ApiKeyRecord => apiKeyRecordOf(row, ARRAY_LISTS);

/** Values in {@link AGENT_COLUMNS} order. */
export const agentValues = (record: AgentRecord): unknown[] => valuesIn(AGENT_COLUMNS, agentRow(record, ARRAY_LISTS));
/** Values in {@link CONVERSATION_COLUMNS} order. */
export const conversationValues = (record: ConversationRecord): unknown[] => valuesIn(CONVERSATION_COLUMNS, conversationRow(record));
/** Values in {@link MESSAGE_COLUMNS} order. */
export const messageValues = (message: MessageRecord): unknown[] => valuesIn(MESSAGE_COLUMNS, messageRow(message));
/** Values in {@link API_KEY_COLUMNS} order. */
export const apiKeyValues = (record: ApiKeyRecord): unknown[] => valuesIn(API_KEY_COLUMNS, apiKeyRow(record, ARRAY_LISTS));
