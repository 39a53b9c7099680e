import type { Implementation } from '../kit/guarded-methods.js';
import { patchedAgent, patchedApiKey } from '../kit/record-patches.js';
import { invalidRequest, notFound } from '../../src/errors.js';
import type {
  AgentRecord,
  ApiKeyRecord,
  ConversationRecord,
  MessageFeedback,
  MessageRecord,
  UsageConsumption,
} from '../../src/ports/agent-key-usage-records.js';
import type {
  AgentPatch,
  AgentStore,
  ApiKeyPatch,
  ApiKeyStore,
  ConversationFilter,
  ConversationStore,
  UsageStore,
} from '../../src/ports/store.js';
import { feedbackColumns } from '../kit/agent-key-usage-rows.js';
import { conversationFilterSql } from '../kit/conversation-filter-sql.js';
import {
  AGENT_COLUMNS,
  AGENT_KEY_COUNT,
  agentValues,
  API_KEY_COLUMNS,
  API_KEY_KEY_COUNT,
  apiKeyValues,
  CONVERSATION_COLUMNS,
  conversationValues,
  MESSAGE_COLUMNS,
  messageValues,
  toAgentRecord,
  toApiKeyRecord,
  toConversationRecord,
  toMessageRecord,
  type AgentRow,
  type ApiKeyRow,
  type ConversationRow,
  type MessageRow,
} from './agent-key-usage-rows.js';
import { inTransaction, type SqliteDatabase, type SqliteValue } from './database.js';
import { conflict } from './record-queries.js';
import { assignments, placeholders } from './row-mapping.js';

/** `a, b` → `c.a, c.b`: the conversation columns read from the aliased table. */
function prefixed(columns: string): string {
  return columns
    .split(',')
    .map((column) => `c.${column.trim()}`)
    .join(', ');
}

/** Agents, conversations, messages, API keys and usage counters. Statements are prepared once. */
export function agentQueries(db: SqliteDatabase) {
  const insertAgent = db.prepare(`INSERT INTO agents (${AGENT_COLUMNS}) VALUES (${placeholders(AGENT_COLUMNS)})`);
  const selectAgent = db.prepare(`SELECT ${AGENT_COLUMNS} FROM agents WHERE id = ?`);
  const selectAgents = db.prepare(`SELECT ${AGENT_COLUMNS} FROM agents ORDER BY created_at, pk`);
  const selectOwnerAgents = db.prepare(`SELECT ${AGENT_COLUMNS} FROM agents WHERE owner_id = ? ORDER BY created_at, pk`);
  const updateAgentRow = db.prepare(`UPDATE agents SET ${assignments(AGENT_COLUMNS, AGENT_KEY_COUNT)} WHERE id = ?`);
  // Conversations and their messages follow through ON DELETE CASCADE, in this one statement.
  const deleteAgentRow = db.prepare('DELETE FROM agents WHERE id = ?');

  const insertConversation = db.prepare(
    `INSERT INTO conversations (${CONVERSATION_COLUMNS}) VALUES (${placeholders(CONVERSATION_COLUMNS)})`,
  );
  const selectConversation = db.prepare(`SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE agent_id = ? AND id = ?`);
  const selectConversations = db.prepare(`SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE agent_id = ? ORDER BY created_at, pk`);
  const touchConversation = db.prepare('UPDATE conversations SET updated_at = ? WHERE agent_id = ? AND id = ?');
  // Messages follow through ON DELETE CASCADE.
  const deleteConversationRow = db.prepare('DELETE FROM conversations WHERE agent_id = ? AND id = ?');
  const selectConversationsWithId = db.prepare(`SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE id = ? ORDER BY created_at, pk`);
  const selectMessageConversation = db.prepare(
    `SELECT ${prefixed(CONVERSATION_COLUMNS)} FROM messages m JOIN conversations c ON c.agent_id = m.agent_id AND c.id = m.conversation_id
     WHERE m.id = ?`,
  );
  const foundConversations = new Map<string, ReturnType<SqliteDatabase['prepare']>>();

  // agent_id first: it is not a field of MessageRecord, only the half of the conversation's key the id lacks.
  const insertMessage = db.prepare(`INSERT INTO messages (agent_id, ${MESSAGE_COLUMNS}) VALUES (?, ${placeholders(MESSAGE_COLUMNS)})`);
  const selectMessageId = db.prepare('SELECT 1 FROM messages WHERE id = ?');
  const selectMessage = db.prepare(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id = ?`);
  const updateFeedback = db.prepare('UPDATE messages SET feedback = ?, feedback_comment = ?, feedback_at = ? WHERE id = ?');
  // LIMIT -1 means no limit in SQLite.
  const selectMessages = db.prepare(
    `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE agent_id = ? AND conversation_id = ? ORDER BY created_at DESC, pk DESC LIMIT ?`,
  );

  const insertApiKey = db.prepare(`INSERT INTO api_keys (${API_KEY_COLUMNS}) VALUES (${placeholders(API_KEY_COLUMNS)})`);
  const selectApiKey = db.prepare(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE id = ?`);
  const selectApiKeyByHash = db.prepare(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE hash = ?`);
  const selectApiKeys = db.prepare(`SELECT ${API_KEY_COLUMNS} FROM api_keys ORDER BY created_at, pk`);
  const selectOwnerApiKeys = db.prepare(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE owner_id = ? ORDER BY created_at, pk`);
  const updateApiKeyRow = db.prepare(`UPDATE api_keys SET ${assignments(API_KEY_COLUMNS, API_KEY_KEY_COUNT)} WHERE id = ?`);

  // Check-and-add in one statement: the insert (first use) and the update (later uses) both carry
  // the limit test, and RETURNING yields no row when it fails.
  const addUsage = db.prepare(
    `INSERT INTO usage_counters (subject, metric, period, used)
       SELECT @subject, @metric, @period, @amount WHERE @limit IS NULL OR @amount <= @limit
     ON CONFLICT (subject, metric, period) DO UPDATE SET used = used + excluded.used
       WHERE @limit IS NULL OR usage_counters.used + excluded.used <= @limit
     RETURNING used`,
  );
  const selectUsage = db.prepare('SELECT used FROM usage_counters WHERE subject = ? AND metric = ? AND period = ?');

  function getAgent(id: string): AgentRecord | null {
    const row = selectAgent.get(id) as AgentRow | undefined;
    return row === undefined ? null : toAgentRecord(row);
  }

  function getConversation(agentId: string, id: string): ConversationRecord | null {
    const row = selectConversation.get(agentId, id) as ConversationRow | undefined;
    return row === undefined ? null : toConversationRecord(row);
  }

  function getMessage(id: string): MessageRecord | null {
    const row = selectMessage.get(id) as MessageRow | undefined;
    return row === undefined ? null : toMessageRecord(row);
  }

  function getApiKey(id: string): ApiKeyRecord | null {
    const row = selectApiKey.get(id) as ApiKeyRow | undefined;
    return row === undefined ? null : toApiKeyRecord(row);
  }

  return {
    createAgent(record: AgentRecord): void {
      inTransaction(db, () => {
        if (selectAgent.get(record.id) !== undefined) throw conflict('agent', record.id);
        withHandleConflict(record.handle, () => insertAgent.run(...agentValues(record)));
      });
    },

    getAgent,

    listAgents({ ownerId }: { ownerId?: string } = {}): AgentRecord[] {
      const rows = ownerId === undefined ? selectAgents.all() : selectOwnerAgents.all(ownerId);
      return (rows as AgentRow[]).map(toAgentRecord);
    },

    updateAgent(id: string, patch: AgentPatch): AgentRecord | null {
      return inTransaction(db, () => {
        const current = getAgent(id);
        if (current === null) return null;
        const next = patchedAgent(current, patch);
        withHandleConflict(next.handle, () => updateAgentRow.run(...agentValues(next).slice(AGENT_KEY_COUNT), id));
        // Read back rather than return `next`, so the caller gets the copy a getter would.
        return getAgent(id);
      });
    },

    deleteAgent(id: string): boolean {
      return inTransaction(db, () => deleteAgentRow.run(id).changes > 0);
    },

    createConversation(record: ConversationRecord): void {
      inTransaction(db, () => {
        if (selectConversation.get(record.agentId, record.id) !== undefined) throw conflict('conversation', record.id);
        if (selectAgent.get(record.agentId) === undefined) throw notFound('agent', record.agentId);
        insertConversation.run(...conversationValues(record));
      });
    },

    getConversation,

    listConversations(agentId: string): ConversationRecord[] {
      return (selectConversations.all(agentId) as ConversationRow[]).map(toConversationRecord);
    },

    findConversations(filter: ConversationFilter): ConversationRecord[] {
      const { sql, values } = conversationFilterSql(filter, 'messages', () => '?');
      // One statement per filter shape (a handful), prepared once.
      let statement = foundConversations.get(sql);
      if (statement === undefined) {
        statement = db.prepare(`SELECT ${prefixed(CONVERSATION_COLUMNS)} FROM conversations c ${sql}`);
        foundConversations.set(sql, statement);
      }
      return (statement.all(...(values as SqliteValue[])) as ConversationRow[]).map(toConversationRecord);
    },

    listConversationsWithId(id: string): ConversationRecord[] {
      return (selectConversationsWithId.all(id) as ConversationRow[]).map(toConversationRecord);
    },

    deleteConversation(agentId: string, id: string): boolean {
      return inTransaction(db, () => deleteConversationRow.run(agentId, id).changes > 0);
    },

    getMessage,

    getMessageConversation(messageId: string): ConversationRecord | null {
      const row = selectMessageConversation.get(messageId) as ConversationRow | undefined;
      return row === undefined ? null : toConversationRecord(row);
    },

    setMessageFeedback(id: string, feedback: MessageFeedback | null): MessageRecord | null {
      return inTransaction(db, () => {
        const columns = feedbackColumns(feedback);
        if (updateFeedback.run(columns.feedback, columns.feedback_comment, columns.feedback_at, id).changes === 0) return null;
        return getMessage(id);
      });
    },

    /** One transaction: any failing message (a duplicate id) rolls back the ones before it. */
    appendMessages(agentId: string, conversationId: string, messages: readonly MessageRecord[]): void {
      inTransaction(db, () => {
        if (getConversation(agentId, conversationId) === null) throw notFound('conversation', conversationId);
        for (const message of messages) {
          if (message.conversationId !== conversationId) {
            throw invalidRequest('a message names another conversation', [
              { path: 'conversationId', message: `message ${message.id} must belong to ${conversationId}` },
            ]);
          }
          if (selectMessageId.get(message.id) !== undefined) throw conflict('message', message.id);
          insertMessage.run(agentId, ...messageValues(message));
        }
        const last = messages.at(-1);
        if (last !== undefined) touchConversation.run(last.createdAt, agentId, conversationId);
      });
    },

    listMessages(agentId: string, conversationId: string, { limit }: { limit?: number } = {}): MessageRecord[] {
      const bound = limit === undefined ? -1 : Math.max(0, Math.floor(limit));
      return (selectMessages.all(agentId, conversationId, bound) as MessageRow[]).map(toMessageRecord);
    },

    createApiKey(record: ApiKeyRecord): void {
      inTransaction(db, () => {
        if (selectApiKey.get(record.id) !== undefined) throw conflict('api key', record.id);
        // The hash itself stays out of the message: it identifies a secret.
        if (selectApiKeyByHash.get(record.hash) !== undefined) throw conflict('api key hash', record.hash.slice(0, 8));
        insertApiKey.run(...apiKeyValues(record));
      });
    },

    getApiKey,

    findApiKeyByHash(hash: string): ApiKeyRecord | null {
      const row = selectApiKeyByHash.get(hash) as ApiKeyRow | undefined;
      return row === undefined ? null : toApiKeyRecord(row);
    },

    listApiKeys({ ownerId }: { ownerId?: string } = {}): ApiKeyRecord[] {
      const rows = ownerId === undefined ? selectApiKeys.all() : selectOwnerApiKeys.all(ownerId);
      return (rows as ApiKeyRow[]).map(toApiKeyRecord);
    },

    updateApiKey(id: string, patch: ApiKeyPatch): ApiKeyRecord | null {
      return inTransaction(db, () => {
        const current = getApiKey(id);
        if (current === null) return null;
        const next = patchedApiKey(current, patch);
        updateApiKeyRow.run(...apiKeyValues(next).slice(API_KEY_KEY_COUNT), id);
        return getApiKey(id);
      });
    },

    /** IMMEDIATE transaction around the one statement, so the refused case reads a settled value. */
    consumeUsage(request: UsageConsumption): { allowed: boolean; used: number } {
      assertUsageNumbers(request);
      return inTransaction(db, () => {
        const added = addUsage.get({
          subject: request.subject,
          metric: request.metric,
          period: request.period,
          amount: request.amount,
          limit: request.limit ?? null,
        }) as { used: number } | undefined;
        if (added !== undefined) return { allowed: true, used: added.used };
        const row = selectUsage.get(request.subject, request.metric, request.period) as { used: number } | undefined;
        return { allowed: false, used: row?.used ?? 0 };
      });
    },
  } satisfies Implementation<AgentStore & ConversationStore & ApiKeyStore & UsageStore>;
}

/** A NaN or infinite amount would poison the counter for the rest of its period. */
function assertUsageNumbers(request: UsageConsumption): void {
  if (!Number.isFinite(request.amount) || (request.limit !== undefined && !Number.isFinite(request.limit))) {
    throw invalidRequest('usage amount and limit must be finite numbers', [
      { path: Number.isFinite(request.amount) ? 'limit' : 'amount', message: 'must be a finite number' },
    ]);
  }
}

/** The handle indexes (the per-owner names migration) refuse a handle of another agent of the same owner or another public agent. */
function withHandleConflict<T>(handle: string | null, write: () => T): T {
  try {
    return write();
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    if (handle !== null && (message.includes('agents_owner_handle') || message.includes('agents_public_handle'))) {
      throw conflict('agent handle', handle);
    }
    throw error;
  }
}
