import type { AgentRecord, ApiKeyRecord, ConversationRecord, MessageRecord } from '../../src/ports/agent-key-usage-records.js';
import {
  agentRow,
  apiKeyRow,
  conversationRow,
  JSON_TEXT_LISTS,
  messageRow,
  toAgentRecord as agentRecordOf,
  toApiKeyRecord as apiKeyRecordOf,
  type AgentRow as SqlAgentRow,
  type ApiKeyRow as SqlApiKeyRow,
} from '../kit/agent-key-usage-rows.js';
import { columnNames, valuesIn } from '../kit/record-rows.js';
import type { SqliteValue } from './database.js';

/**
 * Agent, conversation, message and API key rows of the SQLite store: the kit's shared mapping, with
 * lists as JSON text. Column lists here and in the statements must agree; keys come first (updates
 * skip them by position).
 */

export { toConversationRecord, toMessageRecord, type ConversationRow, type MessageRow } from '../kit/agent-key-usage-rows.js';
export type AgentRow = SqlAgentRow<string>;
export type ApiKeyRow = SqlApiKeyRow<string>;

/** id, owner_id and created_at never change; they are the first columns, updates skip {@link AGENT_KEY_COUNT}. */
export const AGENT_COLUMNS =
  'id, owner_id, created_at, name, description, model_name, temperature, visibility, system_prompt, ' +
  'user_prompt, prompt_type, prompt_template, datastore_ids, updated_at, allow_overrides, handle, settings';
export const AGENT_KEY_COUNT = 3;

export const CONVERSATION_COLUMNS = 'id, agent_id, visitor_id, created_at, updated_at, contact, channel';

export const MESSAGE_COLUMNS =
  'id, conversation_id, role, text, sources, usage, model, visitor_id, created_at, feedback, feedback_comment, feedback_at';

/** id, owner_id, hash, prefix, scopes, datastore_ids, created_at are fixed; updates skip {@link API_KEY_KEY_COUNT}. */
export const API_KEY_COLUMNS = 'id, owner_id, hash, prefix, scopes, datastore_ids, created_at, name, last_used_at, revoked_at, expires_at';
export const API_KEY_KEY_COUNT = 7;

const AGENT_NAMES = columnNames<AgentRow>(AGENT_COLUMNS);
const CONVERSATION_NAMES = columnNames<ReturnType<typeof conversationRow>>(CONVERSATION_COLUMNS);
const MESSAGE_NAMES = columnNames<ReturnType<typeof messageRow>>(MESSAGE_COLUMNS);
const API_KEY_NAMES = columnNames<ApiKeyRow>(API_KEY_COLUMNS);

export const toAgentRecord = (row: AgentRow): AgentRecord => agentRecordOf(row, JSON_TEXT_LISTS);
export const toApiKeyRecord = (row: ApiKeyRow): ApiKeyRecord => apiKeyRecordOf(row, JSON_TEXT_LISTS);

/** Values in {@link AGENT_COLUMNS} order. */
export const agentValues = (record: AgentRecord) => valuesIn(AGENT_NAMES, agentRow(record, JSON_TEXT_LISTS)) as SqliteValue[];
/** Values in {@link CONVERSATION_COLUMNS} order. */
export const conversationValues = (record: ConversationRecord) => valuesIn(CONVERSATION_NAMES, conversationRow(record)) as SqliteValue[];
/** Values in {@link MESSAGE_COLUMNS} order. */
export const messageValues = (record: MessageRecord) => valuesIn(MESSAGE_NAMES, messageRow(record)) as SqliteValue[];
/** Values in {@link API_KEY_COLUMNS} order. */
export const apiKeyValues = (record: ApiKeyRecord) => valuesIn(API_KEY_NAMES, apiKeyRow(record, JSON_TEXT_LISTS)) as SqliteValue[];
