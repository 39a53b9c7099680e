/**
 * Moving an embedded data folder (SQLite + HNSW) to Postgres + pgvector with `ragdesk migrate`:
 * every record, status event, stored file, chunk vector (bit for bit), agent, conversation,
 * message and API key arrives, and queries answer the same. PGlite serves Postgres over the wire.
 */
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrateCommand } from '../../../adapters/cli/migrate-command.js';
import { hnswIndex } from '../../../adapters/hnsw/index.js';
import { fileLoading } from '../../../adapters/loaders/index.js';
import { localAnswerer, localEmbeddings } from '../../../adapters/local/index.js';
import { postgres, postgresStore } from '../../../adapters/postgres/index.js';
import { sqliteStore, sqliteStores } from '../../../adapters/sqlite/index.js';
import { createRagdesk, migrateStore, RagdeskError, type DocumentFragment, type DocumentInput, type Ragdesk } from '../../../src/index.js';
import type { Store } from '../../../src/ports/store.js';
import { samplePassages } from '../../../src/testing/sample-texts.js';
import { freshSchema, startPgliteServer, type PgliteServer } from '../../helpers/pglite-server.js';
import { tempDir } from '../../helpers/setups.js';

const DOCS: DocumentInput[] = [
  ...samplePassages(30, 9).map((text, i) => ({
    name: `doc-${i}`,
    text,
    custom_id: i % 2 === 0 ? 'tenant-a' : 'tenant-b',
    metadata: { source: `doc-${i}.md`, rank: i },
  })),
  { name: 'planted', text: 'The quokka ledger records every zymurgy session of the harbor crew.', metadata: { author: 'Ada' } },
];
const QUERIES = ['telescope nebula orbit', 'dough oven recipe', 'harbor anchor tide', 'quokka zymurgy ledger'];
const embeddings = () => localEmbeddings({ dimensions: 128 });

let pglite: PgliteServer;
let temp: ReturnType<typeof tempDir>;
beforeAll(async () => {
  pglite = await startPgliteServer();
  temp = tempDir('ragdesk-migrate-');
});
afterAll(async () => {
  await pglite?.close();
  temp?.remove();
});

function openSqlite(dir: string): Ragdesk {
  return createRagdesk({
    ...sqliteStores({ path: join(dir, 'ragdesk.db') }),
    index: hnswIndex({ dir: join(dir, 'indexes') }),
    embeddings: embeddings(),
    chat: localAnswerer(),
    files: fileLoading(),
  });
}

/** Everything a store holds, through the port, in a comparable shape (vectors as byte arrays). */
async function snapshot(store: Store) {
  const datastores = await store.listDatastores();
  const perDatastore = [];
  for (const datastore of datastores) {
    const datasources = [];
    for (const datasource of await store.listDatasources(datastore.id)) {
      const file = await store.getDatasourceFile(datasource.id);
      datasources.push({
        datasource,
        events: await store.listStatusEvents(datasource.id),
        chunks: (await store.listChunks(datasource.id)).map((chunk) => ({
          ...chunk,
          vector: Array.from(new Uint8Array(chunk.vector.buffer, chunk.vector.byteOffset, chunk.vector.byteLength)),
        })),
        file: file === null ? null : { ...file, bytes: Array.from(file.bytes) },
        jobs: await store.listJobs({ datasourceId: datasource.id }),
      });
    }
    perDatastore.push({ datastore, count: await store.countChunks(datastore.id), datasources });
  }
  const agents = [];
  for (const agent of await store.listAgents()) {
    const conversations = [];
    for (const conversation of await store.listConversations(agent.id)) {
      conversations.push({ conversation, messages: await store.listMessages(agent.id, conversation.id) });
    }
    agents.push({ agent, conversations });
  }
  return { datastores: perDatastore, agents, keys: await store.listApiKeys() };
}

/** Runs the CLI command with its output captured. */
function migrateCommandForTest(args: string[], output: { stdout: string; stderr: string }): Promise<number> {
  return runMigrateCommand(args, {
    stdout: (text) => {
      output.stdout += text;
    },
    stderr: (text) => {
      output.stderr += text;
    },
    env: {},
    interactive: false,
  });
}

const hits = (fragments: DocumentFragment[]) => fragments.map((fragment) => ({ id: fragment.chunk_id, score: fragment.score }));

describe('ragdesk migrate (SQLite data folder -> Postgres)', () => {
  it('copies every record, vector and key; queries answer the same afterwards', async () => {
    // An embedded instance with a bit of everything.
    const embedded = openSqlite(temp.dir);
    const library = await embedded.datastores.create({ name: 'library' });
    await library.upsert(DOCS);
    const uploads = await embedded.datastores.create({ name: 'uploads' });
    const upload = await embedded.datasources.create({
      type: 'file',
      datastoreId: uploads.id,
      custom_id: 'tenant-a',
      file: {
        bytes: new TextEncoder().encode('Field notes.\n\nThe lighthouse keeper logs every passing schooner.'),
        mimeType: 'text/plain',
        fileName: 'notes.txt',
      },
    });
    expect((await embedded.datasources.waitUntilSettled(upload.id)).status).toBe('synched');
    const agent = await embedded.agents.create({ name: 'Librarian', description: 'Answers', datastoreIds: [library.id] });
    const first = await embedded.agents.query(agent.id, { query: 'What does the quokka ledger record?' });
    await embedded.agents.query(agent.id, { query: 'And the harbor crew?', conversationId: first.conversationId });
    const { key } = await embedded.keys.create({ ownerId: 'owner-1', name: 'ci', scopes: ['read', 'query'] });
    const before = new Map<string, DocumentFragment[]>();
    for (const query of QUERIES) before.set(query, await library.query({ query, topK: 6, mode: 'vector' }));
    const lexicalBefore = await library.query({ query: 'zymurgy', topK: 3, mode: 'lexical' });
    await embedded.close();

    // The command, as a user runs it.
    const schema = freshSchema('migrated');
    const output = { stdout: '', stderr: '' };
    const code = await migrateCommandForTest(['--from', temp.dir, '--to', pglite.url, '--schema', schema], output);
    expect(code, output.stderr).toBe(0);
    expect(output.stdout).toMatch(/Copied 2 datastores, 32 datasources, 32 chunks/);

    // Every record, bit for bit.
    const source = sqliteStore({ path: join(temp.dir, 'ragdesk.db') });
    const target = await postgresStore({ pool: pglite.pool, schema });
    try {
      const [from, to] = [await snapshot(source), await snapshot(target)];
      expect(to).toEqual(from);
      expect(from.datastores.map((entry) => entry.count)).toEqual([31, 1]);
      expect(from.agents[0]?.conversations[0]?.messages).toHaveLength(4);
      expect(from.datastores[1]?.datasources[0]?.events.map((event) => event.to)).toEqual(['pending', 'running', 'synched']);
      // Migrating again into the same place is refused before anything is written.
      await expect(migrateStore({ from: source, to: target })).rejects.toMatchObject({ code: 'conflict' } satisfies Partial<RagdeskError>);
    } finally {
      await source.close();
      await target.close();
    }

    // The same answers from Postgres + pgvector, with no re-embedding.
    const { retrieval, accounts, index } = await postgres({ pool: pglite.pool, schema });
    const moved = createRagdesk({ retrieval, accounts, index, embeddings: embeddings(), chat: localAnswerer() });
    try {
      const datastore = await moved.datastores.get(library.id);
      for (const query of QUERIES) {
        const after = await datastore.query({ query, topK: 6, mode: 'vector' });
        expect(after.map((hit) => hit.chunk_id)).toEqual(hits(before.get(query)!).map((hit) => hit.id));
        after.forEach((hit, i) => expect(hit.score).toBeCloseTo(before.get(query)![i]!.score, 5));
      }
      expect((await datastore.query({ query: 'zymurgy', topK: 3, mode: 'lexical' }))[0]?.chunk_id).toBe(lexicalBefore[0]?.chunk_id);
      expect((await moved.keys.verify(key))?.ownerId).toBe('owner-1');
      const next = await moved.agents.query(agent.id, { query: 'Who keeps the ledger?', conversationId: first.conversationId });
      expect(next.conversationId).toBe(first.conversationId);
    } finally {
      await moved.close();
      await pglite.pool.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
    }
  });

  it('refuses a folder without a ragdesk.db, and bad arguments', async () => {
    const output = { stdout: '', stderr: '' };
    expect(await migrateCommandForTest(['--from', join(temp.dir, 'nowhere'), '--to', pglite.url], output)).toBe(1);
    expect(output.stderr).toMatch(/no ragdesk\.db/);
    expect(await migrateCommandForTest(['--to', pglite.url], output)).toBe(2);
  });
});
