import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import type { SourceEntry } from '../../src/ports/agent-key-usage-records.js';
import { makeAgent, makeConversation, makeMessage } from '../../src/testing/fixtures.js';
import { tempDir } from '../helpers/setups.js';

describe('stored source entries', () => {
  it('an answer stored without passages (one excerpt per entry) reads back with that excerpt as its one passage', async () => {
    const temp = tempDir();
    const { retrieval, accounts: store } = sqliteStores({ path: join(temp.dir, 'ragdesk.db') });
    await retrieval.close();
    try {
      const agent = makeAgent();
      await store.createAgent(agent);
      const conversation = makeConversation(agent, 1);
      await store.createConversation(conversation);
      const stored = makeMessage(conversation, 2, 'assistant');
      // The shape answers had before entries listed their passages, as it sits in the JSON column.
      const { passages: _passages, ...old } = stored.sources[0]!;
      await store.appendMessages(agent.id, conversation.id, [{ ...stored, sources: [old as SourceEntry] }]);
      const [read] = await store.listMessages(agent.id, conversation.id);
      expect(read!.sources[0]!.passages).toEqual([{ chunk_id: 'chunk-1', page_number: 2, text: 'The excerpt.', score: 0.75 }]);
      expect(read!.sources[0]!.text).toBe('The excerpt.');
    } finally {
      await store.close();
      temp.remove();
    }
  });
});
