import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresStore, SCHEMA_VERSION } from '../../adapters/postgres/index.js';
import { isoAt, makeAgent, makeConversation, makeMessage } from '../../src/testing/fixtures.js';
import { freshSchema, startPgliteServer, type PgliteServer } from '../helpers/pglite-server.js';

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

  it('keeps the conversations and messages and adds what reading them needs', async () => {
    const schema = freshSchema('conversation-migration');
    const s = pg.escapeIdentifier(schema);
    const old = await postgresStore({ pool: pglite.pool, schema });
    const agent = makeAgent({ name: 'Support' });
    const conversation = makeConversation(agent, 3);
    const question = makeMessage(conversation, 4, 'user');
    const answer = makeMessage(conversation, 5, 'assistant');
    await old.createAgent(agent);
    await old.createConversation(conversation);
    await old.appendMessages(conversation.id, [question, answer]);
    await old.close();
    // Undo the readable-conversations migration, the last one this code has.
    await pglite.pool.query(`
      DROP INDEX ${s}.conversations_activity; DROP INDEX ${s}.conversations_visitor; DROP INDEX ${s}.messages_feedback;
      ALTER TABLE ${s}.conversations DROP COLUMN channel;
      ALTER TABLE ${s}.messages DROP COLUMN feedback, DROP COLUMN feedback_comment, DROP COLUMN feedback_at;
      DELETE FROM ${s}.schema_migrations WHERE version = ${SCHEMA_VERSION};`);

    const store = await postgresStore({ pool: pglite.pool, schema });
    try {
      expect(await store.listMessages(conversation.id)).toEqual([answer, question]);
      expect(await store.getConversation(conversation.id)).toEqual({ ...conversation, updatedAt: isoAt(5) });
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
