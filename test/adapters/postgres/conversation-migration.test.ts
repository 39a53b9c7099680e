import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresStore, SCHEMA_VERSION } from '../../../adapters/postgres/index.js';
import {
  AGENT_COLUMNS,
  agentValues,
  CONVERSATION_COLUMNS,
  conversationValues,
  MESSAGE_COLUMNS,
  messageValues,
} from '../../../adapters/postgres/agent-key-usage-rows.js';
import { CONVERSATION_READING_VERSION, migrate } from '../../../adapters/postgres/schema.js';
import { isoAt, makeAgent, makeConversation, makeMessage } from '../../../src/testing/fixtures.js';
import { freshSchema, startPgliteServer, type PgliteServer } from '../../helpers/pglite-server.js';

/**
 * A Postgres schema written before conversations were readable (no channel, no feedback columns,
 * no listing indexes) opens unchanged: its messages read unmarked and its conversations list.
 */
describe('postgres: migrating a schema from before readable conversations', () => {
  let pglite: PgliteServer;
  beforeAll(async () => {
    pglite = await startPgliteServer();
  });
  afterAll(async () => {
    await pglite?.close();
  });

  /** A row with the columns that existed before the migration (the ones it adds are left out). */
  const insertRow = async (table: string, columns: readonly string[], values: unknown[]) => {
    const added = new Set(['channel', 'feedback', 'feedback_comment', 'feedback_at']);
    const kept = columns.flatMap((column, i) => (added.has(column) ? [] : [{ column, value: values[i] }]));
    await pglite.pool.query(
      `INSERT INTO ${table} (${kept.map(({ column }) => column).join(', ')}) VALUES (${kept.map((_, i) => `$${i + 1}`).join(', ')})`,
      kept.map(({ value }) => value),
    );
  };

  it('keeps the conversations and messages and adds what reading them needs', async () => {
    const schema = freshSchema('conversation-migration');
    const s = pg.escapeIdentifier(schema);
    // A schema built by the migrations before it, with rows as the code of that version wrote them.
    await migrate(pglite.pool, schema, CONVERSATION_READING_VERSION - 1);
    const agent = makeAgent({ name: 'Support' });
    const conversation = makeConversation(agent, 3);
    const question = makeMessage(conversation, 4, 'user');
    const answer = makeMessage(conversation, 5, 'assistant');
    await insertRow(`${s}.agents`, AGENT_COLUMNS, agentValues(agent));
    await insertRow(`${s}.conversations`, CONVERSATION_COLUMNS, conversationValues({ ...conversation, updatedAt: isoAt(5) }));
    for (const message of [question, answer]) await insertRow(`${s}.messages`, MESSAGE_COLUMNS, messageValues(message));

    const store = await postgresStore({ pool: pglite.pool, schema });
    try {
      expect(await store.listMessages(agent.id, conversation.id)).toEqual([answer, question]);
      expect(await store.getConversation(agent.id, conversation.id)).toEqual({ ...conversation, updatedAt: isoAt(5) });
      expect((await store.findConversations({ agentId: agent.id, limit: 5 })).map((c) => c.id)).toEqual([conversation.id]);
      await store.setMessageFeedback(answer.id, { value: 'good', comment: null, createdAt: isoAt(9) });
      expect((await store.findConversations({ agentId: agent.id, limit: 5, feedback: 'good' })).length).toBe(1);
      const { rows } = await pglite.pool.query<{ version: number }>(`SELECT max(version) AS version FROM ${s}.schema_migrations`);
      expect(Number(rows[0]!.version)).toBe(SCHEMA_VERSION);
    } finally {
      await store.close();
      await pglite.pool.query(`DROP SCHEMA ${s} CASCADE`);
    }
  });
});
