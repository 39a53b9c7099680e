/**
 * The crash harness's checks must be able to fail: each kind of damage they look for is planted
 * here on a real data directory and must be reported.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { localEmbeddings } from '../../adapters/local/index.js';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import { checkConsistency, checkDatabaseFile, strayIndexDirectories } from '../../benchmarks/crash/checks.js';
import { createRagdesk } from '../../src/index.js';
import type { AccountStore, RetrievalStore, VectorIndex } from '../../src/ports/index.js';
import { tempDir } from '../helpers/setups.js';

describe('crash harness checks', () => {
  let temp: ReturnType<typeof tempDir>;
  let datastoreId: string;
  let store: RetrievalStore;
  let accounts: AccountStore;
  let index: VectorIndex;

  beforeEach(async () => {
    temp = tempDir('ragdesk-checks-');
    const ragdesk = createRagdesk({
      ...sqliteStores({ path: join(temp.dir, 'ragdesk.db') }),
      index: hnswIndex({ dir: join(temp.dir, 'indexes') }),
      embeddings: localEmbeddings(),
    });
    const datastore = await ragdesk.datastores.create({ name: 'checked' });
    await datastore.upsert([{ text: 'Alpha about glaciers.' }, { text: 'Beta about volcanoes.' }, { text: 'Gamma about reefs.' }]);
    datastoreId = datastore.id;
    await ragdesk.close();
    ({ retrieval: store, accounts } = sqliteStores({ path: join(temp.dir, 'ragdesk.db') }));
    index = hnswIndex({ dir: join(temp.dir, 'indexes') });
  });
  afterEach(async () => {
    await index.close();
    await store.close();
    await accounts.close();
    temp.remove();
  });

  it('passes an intact directory', async () => {
    expect(checkDatabaseFile(join(temp.dir, 'ragdesk.db'))).toEqual([]);
    const report = await checkConsistency(store, index, { settled: true });
    expect(report).toMatchObject({ failures: [], datastores: 1, datasources: 3, chunks: 3, statuses: { synched: 3 } });
    expect(report.opens[0]?.result.rebuilt).toBe(false);
    expect(strayIndexDirectories(join(temp.dir, 'indexes'), [datastoreId])).toEqual([]);
    expect(strayIndexDirectories(join(temp.dir, 'indexes'), [])).toHaveLength(1);
  });

  it('reports a vector missing from the index and one that is no chunk', async () => {
    // The index claims the store's current sequence while missing one vector and holding a stranger.
    await checkConsistency(store, index, { settled: true });
    const sequence = await store.chunkSequence(datastoreId);
    const chunks = [];
    for await (const batch of store.iterateChunks(datastoreId)) chunks.push(...batch);
    await index.remove(datastoreId, [chunks[0]!.id], sequence);
    await index.upsert(
      datastoreId,
      [{ id: 'ghost', vector: chunks[1]!.vector, datasourceId: chunks[1]!.datasourceId, customId: null }],
      sequence,
    );
    const report = await checkConsistency(store, index, { settled: true });
    expect(report.failures).toEqual([
      expect.stringContaining('1 of 3 chunk(s) not found by an exact-vector query'),
      expect.stringContaining('not chunks, e.g. ghost'),
    ]);
    await index.remove(datastoreId, ['ghost'], sequence);
    expect((await checkConsistency(store, index, { settled: true })).failures).toEqual([
      expect.stringContaining('index holds 2 vectors, store 3 chunks'),
      expect.stringContaining('1 of 3 chunk(s) not found'),
    ]);
  });

  it('reports unsettled datasources, open jobs and counters that disagree with the chunks', async () => {
    const [first, second] = await store.listDatasources(datastoreId);
    await store.updateDatasource(first!.id, { status: 'running' });
    await store.updateDatasource(second!.id, { nbChunks: 7 });
    const unsettled = await checkConsistency(store, index, { settled: false });
    expect(unsettled.failures).toEqual([expect.stringContaining('says 7 chunks, has 1')]);
    const settled = await checkConsistency(store, index, { settled: true });
    expect(settled.failures).toEqual([expect.stringContaining('stuck in running'), expect.stringContaining('says 7 chunks, has 1')]);
  });

  it('reports a damaged database file', async () => {
    await index.close();
    await store.close();
    await accounts.close();
    const path = join(temp.dir, 'ragdesk.db');
    const bytes = readFileSync(path);
    // Page 2 onwards: b-tree pages the integrity check walks.
    for (let offset = 16_384; offset < Math.min(bytes.length, 16_384 * 3); offset += 7) bytes[offset] = 0x5a;
    writeFileSync(path, bytes);
    expect(checkDatabaseFile(path)).not.toEqual([]);
    ({ retrieval: store, accounts } = sqliteStores({ path: join(temp.dir, 'other.db') }));
    index = hnswIndex({ dir: join(temp.dir, 'other-indexes') });
  });
});
