import { cpSync, readdirSync, rmSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localEmbeddings } from '../../adapters/local/index.js';
import { RagdeskError } from '../../src/index.js';
import { SETUPS, tempDir } from '../helpers/setups.js';

const embedded = SETUPS[0]!;

const TOPICS = ['glacier ice sheet melting', 'quantum entanglement photons', 'medieval castle siege', 'coral reef bleaching'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('vector index recovery on the embedded default', () => {
  let temp: ReturnType<typeof tempDir>;
  let datastoreId: string;
  let expected: string[];

  beforeEach(async () => {
    temp = tempDir();
    const ragdesk = embedded.open(temp.dir);
    const datastore = await ragdesk.datastores.create({ name: 'recovery' });
    datastoreId = datastore.id;
    await datastore.upsert(TOPICS.map((topic, i) => ({ text: `Document ${i} is about ${topic}.`, name: topic })));
    expected = (await datastore.query({ query: 'ice sheet glacier', mode: 'vector', topK: 4 })).map((f) => f.chunk_id);
    await ragdesk.close();
  });
  afterEach(() => temp.remove());

  async function vectorResults(): Promise<string[]> {
    const ragdesk = embedded.open(temp.dir);
    try {
      const datastore = await ragdesk.datastores.get(datastoreId);
      return (await datastore.query({ query: 'ice sheet glacier', mode: 'vector', topK: 4 })).map((f) => f.chunk_id);
    } finally {
      await ragdesk.close();
    }
  }

  it('reloads the persisted index with the same results', async () => {
    expect(expected).toHaveLength(4);
    expect(await vectorResults()).toEqual(expected);
  });

  it('rebuilds when the index files are deleted', async () => {
    rmSync(join(temp.dir, 'indexes'), { recursive: true, force: true });
    expect(await vectorResults()).toEqual(expected);
  });

  it('rebuilds when the index files are truncated', async () => {
    const files = filesUnder(join(temp.dir, 'indexes'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) truncateSync(file, Math.floor(statSync(file).size / 3));
    expect(await vectorResults()).toEqual(expected);
  });

  it('rebuilds when the index is older than the store', async () => {
    const snapshot = join(temp.dir, 'snapshot');
    cpSync(join(temp.dir, 'indexes'), snapshot, { recursive: true });
    const ragdesk = embedded.open(temp.dir);
    const datastore = await ragdesk.datastores.get(datastoreId);
    const { ids } = await datastore.upsert([{ text: 'Aurora borealis shimmer over the polar night sky.', name: 'aurora' }]);
    await ragdesk.close();
    rmSync(join(temp.dir, 'indexes'), { recursive: true, force: true });
    cpSync(snapshot, join(temp.dir, 'indexes'), { recursive: true });

    const reopened = embedded.open(temp.dir);
    try {
      const again = await reopened.datastores.get(datastoreId);
      const [top] = await again.query({ query: 'aurora borealis polar sky', mode: 'vector', topK: 1 });
      expect(top?.datasource_id).toBe(ids[0]);
    } finally {
      await reopened.close();
    }
  });

  it('refuses another embedder with embedding_mismatch until reindexed', async () => {
    const other = localEmbeddings({ dimensions: 256 });
    expect(other.model).not.toBe(localEmbeddings().model);
    const ragdesk = embedded.open(temp.dir, other);
    try {
      const datastore = await ragdesk.datastores.get(datastoreId);
      const error = await datastore.query({ query: 'glacier' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RagdeskError);
      expect((error as RagdeskError).code).toBe('embedding_mismatch');
      await expect(datastore.upsert([{ text: 'more' }])).rejects.toMatchObject({ code: 'embedding_mismatch' });
      // Words need no embedder, so lexical search keeps working meanwhile.
      expect((await datastore.query({ query: 'glacier', mode: 'lexical' })).length).toBeGreaterThan(0);

      expect(await datastore.reindex()).toEqual({ chunks: TOPICS.length });
      const refreshed = await ragdesk.datastores.get(datastoreId);
      expect(refreshed.embeddingModel).toBe(other.model);
      expect(refreshed.embeddingDimensions).toBe(256);
      const [top] = await refreshed.query({ query: 'glacier ice sheet', mode: 'vector', topK: 1 });
      expect(top?.text).toContain('glacier');
    } finally {
      await ragdesk.close();
    }
  });
});
