import type pg from 'pg';
import { API_KEY_PATCH_KEYS, patchedAgent } from '../kit/record-patches.js';
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
import type { Implementation } from '../kit/guarded-methods.js';
import { feedbackColumns } from '../kit/agent-key-usage-rows.js';
import { conversationFilterSql } from '../kit/conversation-filter-sql.js';
import { inTransaction, selectRow, selectRows, sqlState } from './connection.js';
import { conflict } from './record-queries.js';
import {
  AGENT_COLUMNS,
  agentValues,
  API_KEY_COLUMNS,
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
import { columnList, placeholders } from './row-mapping.js';

const AGENT_SELECT = columnList(AGENT_COLUMNS);
const CONVERSATION_SELECT = columnList(CONVERSATION_COLUMNS);
const MESSAGE_SELECT = columnList(MESSAGE_COLUMNS);
const API_KEY_SELECT = columnList(API_KEY_COLUMNS);

/** Agents, conversations, messages, API keys and usage counters. */
export function agentQueries(pool: pg.Pool, s: string) {
  async function getAgent(id: string): Promise<AgentRecord | null> {
    const row = await selectRow<AgentRow>(pool, `SELECT ${AGENT_SELECT} FROM ${s}.agents WHERE id = $1`, [id]);
    return row === undefined ? null : toAgentRecord(row);
  }

  async function getMessage(id: string): Promise<MessageRecord | null> {
    const row = await selectRow<MessageRow>(pool, `SELECT ${MESSAGE_SELECT} FROM ${s}.messages WHERE id = $1`, [id]);
    return row === undefined ? null : toMessageRecord(row);
  }

  return {
    async createAgent(record: AgentRecord): Promise<void> {
      const inserted = await withHandleConflict(record.handle, () =>
        pool.query(
          `INSERT INTO ${s}.agents (${AGENT_SELECT}) VALUES (${placeholders(AGENT_COLUMNS.length)}) ON CONFLICT (id) DO NOTHING`,
          agentValues(record),
        ),
      );
      if (inserted.rowCount === 0) throw conflict('agent', record.id);
    },

    getAgent,

    async listAgents(filter: { ownerId?: string } = {}): Promise<AgentRecord[]> {
      const rows = await selectRows<AgentRow>(
        pool,
        `SELECT ${AGENT_SELECT} FROM ${s}.agents WHERE ($1::text IS NULL OR owner_id = $1) ORDER BY created_at, pk`,
        [filter.ownerId ?? null],
      );
      return rows.map(toAgentRecord);
    },

    updateAgent(id: string, patch: AgentPatch): Promise<AgentRecord | null> {
      return inTransaction(pool, async (client) => {
        const row = await selectRow<AgentRow>(client, `SELECT ${AGENT_SELECT} FROM ${s}.agents WHERE id = $1 FOR UPDATE`, [id]);
        if (row === undefined) return null;
        const next = patchedAgent(toAgentRecord(row), patch, (value) => (Array.isArray(value) ? [...(value as unknown[])] : value));
        // id, owner_id and created_at never change: skip them in the SET list.
        const values = agentValues(next);
        const settable = AGENT_COLUMNS.map((column, i) => ({ column, value: values[i] })).filter(
          ({ column }) => column !== 'id' && column !== 'owner_id' && column !== 'created_at',
        );
        await withHandleConflict(next.handle, () =>
          client.query(`UPDATE ${s}.agents SET ${settable.map(({ column }, i) => `${column} = $${i + 2}`).join(', ')} WHERE id = $1`, [
            id,
            ...settable.map(({ value }) => value),
          ]),
        );
        return next;
      });
    },

    /** Conversations and their messages cascade with the agent row. */
    async deleteAgent(id: string): Promise<boolean> {
      const deleted = await pool.query(`DELETE FROM ${s}.agents WHERE id = $1`, [id]);
      return (deleted.rowCount ?? 0) > 0;
    },

    async createConversation(record: ConversationRecord): Promise<void> {
      // INSERT ... SELECT from the agent row: an unknown agent inserts nothing (and cannot be
      // deleted half-way, the FK locks it); a duplicate id raises a unique violation.
      try {
        const inserted = await pool.query(
          `INSERT INTO ${s}.conversations (${CONVERSATION_SELECT})
           SELECT $1, id, $3, $4, $5, $6, $7 FROM ${s}.agents WHERE id = $2`,
          conversationValues(record),
        );
        if (inserted.rowCount === 0) throw notFound('agent', record.agentId);
      } catch (error) {
        if (sqlState(error) === '23505') throw conflict('conversation', record.id);
        throw error;
      }
    },

    async getConversation(agentId: string, id: string): Promise<ConversationRecord | null> {
      const row = await selectRow<ConversationRow>(
        pool,
        `SELECT ${CONVERSATION_SELECT} FROM ${s}.conversations WHERE agent_id = $1 AND id = $2`,
        [agentId, id],
      );
      return row === undefined ? null : toConversationRecord(row);
    },

    async listConversations(agentId: string): Promise<ConversationRecord[]> {
      const rows = await selectRows<ConversationRow>(
        pool,
        `SELECT ${CONVERSATION_SELECT} FROM ${s}.conversations WHERE agent_id = $1 ORDER BY created_at, pk`,
        [agentId],
      );
      return rows.map(toConversationRecord);
    },

    /** One transaction: the batch lands whole, with the conversation's new `updatedAt`, or not at all. */
    appendMessages(agentId: string, conversationId: string, batch: readonly MessageRecord[]): Promise<void> {
      return inTransaction(pool, async (client) => {
        const conversation = await selectRow(client, `SELECT 1 FROM ${s}.conversations WHERE agent_id = $1 AND id = $2 FOR UPDATE`, [
          agentId,
          conversationId,
        ]);
        if (conversation === undefined) throw notFound('conversation', conversationId);
        const seen = new Set<string>();
        for (const message of batch) {
          if (seen.has(message.id)) throw conflict('message', message.id);
          if (message.conversationId !== conversationId) {
            throw invalidRequest('a message names another conversation', [
              { path: 'conversationId', message: `message ${message.id} must belong to ${conversationId}` },
            ]);
          }
          seen.add(message.id);
        }
        const last = batch.at(-1);
        if (last === undefined) return;
        // One row per statement keeps insertion order = pk order (ties in listMessages rely on it).
        for (const message of batch) {
          const inserted = await client.query(
            `INSERT INTO ${s}.messages (${MESSAGE_SELECT}, agent_id) VALUES (${placeholders(MESSAGE_COLUMNS.length + 1)}) ON CONFLICT (id) DO NOTHING`,
            [...messageValues(message), agentId],
          );
          if (inserted.rowCount === 0) throw conflict('message', message.id);
        }
        await client.query(`UPDATE ${s}.conversations SET updated_at = $3 WHERE agent_id = $1 AND id = $2`, [
          agentId,
          conversationId,
          last.createdAt,
        ]);
      });
    },

    async listMessages(agentId: string, conversationId: string, options: { limit?: number } = {}): Promise<MessageRecord[]> {
      const limit = options.limit === undefined ? null : Math.max(0, Math.floor(options.limit));
      const rows = await selectRows<MessageRow>(
        pool,
        `SELECT ${MESSAGE_SELECT} FROM ${s}.messages WHERE agent_id = $1 AND conversation_id = $2
         ORDER BY created_at DESC, pk DESC LIMIT $3`,
        [agentId, conversationId, limit],
      );
      return rows.map(toMessageRecord);
    },

    async findConversations(filter: ConversationFilter): Promise<ConversationRecord[]> {
      const { sql, values } = conversationFilterSql(filter, `${s}.messages`, (index) => `$${index}`, 'c.id COLLATE "C"');
      const columns = CONVERSATION_COLUMNS.map((column) => `c.${column}`).join(', ');
      const rows = await selectRows<ConversationRow>(pool, `SELECT ${columns} FROM ${s}.conversations c ${sql}`, values);
      return rows.map(toConversationRecord);
    },

    async listConversationsWithId(id: string): Promise<ConversationRecord[]> {
      const rows = await selectRows<ConversationRow>(
        pool,
        `SELECT ${CONVERSATION_SELECT} FROM ${s}.conversations WHERE id = $1 ORDER BY created_at, pk`,
        [id],
      );
      return rows.map(toConversationRecord);
    },

    /** Messages cascade with the conversation row. */
    async deleteConversation(agentId: string, id: string): Promise<boolean> {
      const deleted = await pool.query(`DELETE FROM ${s}.conversations WHERE agent_id = $1 AND id = $2`, [agentId, id]);
      return (deleted.rowCount ?? 0) > 0;
    },

    getMessage,

    async getMessageConversation(messageId: string): Promise<ConversationRecord | null> {
      const columns = CONVERSATION_COLUMNS.map((column) => `c.${column}`).join(', ');
      const row = await selectRow<ConversationRow>(
        pool,
        `SELECT ${columns} FROM ${s}.messages m JOIN ${s}.conversations c ON c.agent_id = m.agent_id AND c.id = m.conversation_id
         WHERE m.id = $1`,
        [messageId],
      );
      return row === undefined ? null : toConversationRecord(row);
    },

    async setMessageFeedback(id: string, feedback: MessageFeedback | null): Promise<MessageRecord | null> {
      const columns = feedbackColumns(feedback);
      const row = await selectRow<MessageRow>(
        pool,
        `UPDATE ${s}.messages SET feedback = $2, feedback_comment = $3, feedback_at = $4 WHERE id = $1 RETURNING ${MESSAGE_SELECT}`,
        [id, columns.feedback, columns.feedback_comment, columns.feedback_at],
      );
      return row === undefined ? null : toMessageRecord(row);
    },

    async createApiKey(record: ApiKeyRecord): Promise<void> {
      try {
        await pool.query(
          `INSERT INTO ${s}.api_keys (${API_KEY_SELECT}) VALUES (${placeholders(API_KEY_COLUMNS.length)})`,
          apiKeyValues(record),
        );
      } catch (error) {
        if (sqlState(error) !== '23505') throw error;
        const constraint = (error as { constraint?: unknown }).constraint;
        throw typeof constraint === 'string' && constraint.includes('hash')
          ? conflict('api key hash', record.hash.slice(0, 8))
          : conflict('api key', record.id);
      }
    },

    async getApiKey(id: string): Promise<ApiKeyRecord | null> {
      const row = await selectRow<ApiKeyRow>(pool, `SELECT ${API_KEY_SELECT} FROM ${s}.api_keys WHERE id = $1`, [id]);
      return row === undefined ? null : toApiKeyRecord(row);
    },

    async findApiKeyByHash(hash: string): Promise<ApiKeyRecord | null> {
      const row = await selectRow<ApiKeyRow>(pool, `SELECT ${API_KEY_SELECT} FROM ${s}.api_keys WHERE hash = $1`, [hash]);
      return row === undefined ? null : toApiKeyRecord(row);
    },

    async listApiKeys(filter: { ownerId?: string } = {}): Promise<ApiKeyRecord[]> {
      const rows = await selectRows<ApiKeyRow>(
        pool,
        `SELECT ${API_KEY_SELECT} FROM ${s}.api_keys WHERE ($1::text IS NULL OR owner_id = $1) ORDER BY created_at, pk`,
        [filter.ownerId ?? null],
      );
      return rows.map(toApiKeyRecord);
    },

    /** Only name, last use and revocation change; a null parameter keeps the column. */
    async updateApiKey(id: string, patch: ApiKeyPatch): Promise<ApiKeyRecord | null> {
      const values = API_KEY_PATCH_KEYS.map((key) => patch[key]);
      const row = await selectRow<ApiKeyRow>(
        pool,
        `UPDATE ${s}.api_keys SET
           name = CASE WHEN $2 THEN $3 ELSE name END,
           last_used_at = CASE WHEN $4 THEN $5 ELSE last_used_at END,
           revoked_at = CASE WHEN $6 THEN $7 ELSE revoked_at END
         WHERE id = $1 RETURNING ${API_KEY_SELECT}`,
        [id, ...values.flatMap((value) => [value !== undefined, value ?? null])],
      );
      return row === undefined ? null : toApiKeyRecord(row);
    },

    /**
     * One atomic upsert: the row lock taken by ON CONFLICT serialises concurrent consumers, and the
     * WHERE re-checks the limit against the latest committed value. When nothing was returned the
     * amount was refused; the current value is read afterwards.
     */
    async consumeUsage(request: UsageConsumption): Promise<{ allowed: boolean; used: number }> {
      if (!Number.isFinite(request.amount) || (request.limit !== undefined && !Number.isFinite(request.limit))) {
        // A NaN or infinite amount would poison the counter for the rest of its period.
        throw invalidRequest('usage amount and limit must be finite numbers', [
          { path: Number.isFinite(request.amount) ? 'limit' : 'amount', message: 'must be a finite number' },
        ]);
      }
      const key = [request.subject, request.metric, request.period];
      const limit = request.limit ?? null;
      const added = await selectRow<{ used: number }>(
        pool,
        `INSERT INTO ${s}.usage_counters AS u (subject, metric, period, used)
         SELECT $1, $2, $3, $4::double precision WHERE $5::double precision IS NULL OR $4::double precision <= $5::double precision
         ON CONFLICT (subject, metric, period) DO UPDATE SET used = u.used + excluded.used
         WHERE $5::double precision IS NULL OR u.used + excluded.used <= $5::double precision
         RETURNING used`,
        [...key, request.amount, limit],
      );
      if (added !== undefined) return { allowed: true, used: added.used };
      const current = await selectRow<{ used: number }>(
        pool,
        `SELECT used FROM ${s}.usage_counters WHERE subject = $1 AND metric = $2 AND period = $3`,
        key,
      );
      return { allowed: false, used: current?.used ?? 0 };
    },
  } satisfies Implementation<AgentStore & ConversationStore & ApiKeyStore & UsageStore>;
}

/** The handle indexes (the per-owner names migration) refuse a handle of another agent of the same owner or another public agent. */
async function withHandleConflict<T>(handle: string | null, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const constraint = (error as { constraint?: unknown }).constraint;
    if (handle !== null && sqlState(error) === '23505' && (constraint === 'agents_owner_handle' || constraint === 'agents_public_handle')) {
      throw conflict('agent handle', handle);
    }
    throw error;
  }
}
