/**
 * bench:conversations — reading an agent's conversations back from SQLite: one page of 20 (what
 * `conversations.list` reads: the page, then each conversation's messages for its counts), newest
 * first, filtered by feedback or visitor, and deep in the listing, on an agent with many
 * conversations beside another agent's. Each case is timed with the listing indexes and again on
 * the same file with them dropped, so the ratio compares like with like in one run.
 *
 *   npm run bench:conversations -- [--conversations 10000] [--runs 30]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sqliteStore } from '../adapters/sqlite/index.js';
import type { ConversationFilter, Store } from '../src/index.js';
import { isoAt, makeAgent, makeConversation, makeMessage } from '../src/testing/fixtures.js';
import { flags, latencySummary, printTable, writeResult, type Row } from './lib/report.js';

const args = flags(process.argv.slice(2));
const CONVERSATIONS = Number(args.get('conversations') ?? 10_000);
const RUNS = Number(args.get('runs') ?? 30);
const PAGE = 20;

const dir = mkdtempSync(join(tmpdir(), 'ragdesk-bench-conversations-'));
const path = join(dir, 'ragdesk.db');
try {
  const agent = makeAgent({ name: 'Bench' });
  const other = makeAgent({ name: 'Other' });
  const fill = sqliteStore({ path });
  await fill.createAgent(agent);
  await fill.createAgent(other);
  for (let i = 0; i < CONVERSATIONS; i++) {
    for (const owner of [agent, other]) {
      const conversation = makeConversation(owner, i, { visitorId: `v-${i % 500}`, channel: i % 3 === 0 ? 'api' : 'website' });
      await fill.createConversation(conversation);
      const answer = makeMessage(conversation, i + 0.5, 'assistant');
      await fill.appendMessages(conversation.agentId, conversation.id, [makeMessage(conversation, i, 'user'), answer]);
      // One conversation in a hundred holds an answer marked bad.
      if (owner === agent && i % 100 === 0) await fill.setMessageFeedback(answer.id, { value: 'bad', comment: null, createdAt: isoAt(i) });
    }
  }
  await fill.close();

  const cases: [string, ConversationFilter][] = [
    ['newest page', { agentId: agent.id, limit: PAGE + 1 }],
    ['feedback=bad', { agentId: agent.id, limit: PAGE + 1, feedback: 'bad' }],
    ['visitorId', { agentId: agent.id, limit: PAGE + 1, visitorId: 'v-7' }],
    ['page after the middle', { agentId: agent.id, limit: PAGE + 1, after: { updatedAt: isoAt(CONVERSATIONS / 2), id: '~' } }],
  ];
  const measure = async (store: Store) => {
    const medians = new Map<string, number>();
    for (const [name, filter] of cases) {
      const samples: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const started = performance.now();
        const page = await store.findConversations(filter);
        for (const conversation of page.slice(0, PAGE)) await store.listMessages(conversation.agentId, conversation.id);
        samples.push(performance.now() - started);
      }
      medians.set(name, latencySummary(samples).p50);
    }
    return medians;
  };

  const indexed = sqliteStore({ path });
  const withIndexes = await measure(indexed);
  await indexed.close();
  const db = new Database(path);
  db.exec('DROP INDEX conversations_activity; DROP INDEX conversations_visitor; DROP INDEX messages_feedback;');
  db.close();
  // Reopening runs no migration (the version is unchanged), so the indexes stay dropped.
  const bare = sqliteStore({ path });
  const withoutIndexes = await measure(bare);
  await bare.close();

  const rows: Row[] = cases.map(([name]) => {
    const fast = withIndexes.get(name) ?? Number.NaN;
    const slow = withoutIndexes.get(name) ?? Number.NaN;
    return { case: name, 'p50 ms (indexes)': fast, 'p50 ms (no indexes)': slow, ratio: slow / fast };
  });
  printTable(
    `${CONVERSATIONS} conversations of one agent (+${CONVERSATIONS} of another), 2 messages each, 1% marked bad; a page of ${PAGE} with its messages, median of ${RUNS}`,
    rows,
  );
  writeResult('conversations', { conversations: CONVERSATIONS, runs: RUNS, page: PAGE, rows });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
