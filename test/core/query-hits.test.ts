/**
 * How a query's hits become fragments: the fast reads (the vector index's `similarities` for hits
 * the vector side did not score, the store's narrow joined `getChunkHits` rows) must answer exactly
 * as the generic reads do (each chunk read whole with `getChunks`, its datasource apart, its stored
 * vector compared in JavaScript): the same fragments, fields and order, scores within 1e-6.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localEmbeddings } from '../../adapters/local/index.js';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import { createRagdesk, RagdeskError, type Datastore, type DocumentFragment, type Ragdesk, type RetrievalMode } from '../../src/index.js';
import type { RetrievalStore, VectorIndex } from '../../src/ports/index.js';
import type { HnswIndex } from '../../adapters/hnsw/index.js';
import { samplePassages } from '../../src/testing/sample-texts.js';
import { tempDir } from '../helpers/setups.js';

const QUERIES = ['the sailing crew trims the sail', 'a ripe tomato in the garden', 'telescope sees a distant galaxy', 'bread oven'];
const MODES: RetrievalMode[] = ['hybrid', 'lexical', 'vector'];

interface Instance {
  ragdesk: Ragdesk;
  retrieval: RetrievalStore;
  index: HnswIndex;
  datastore: Datastore;
}

/** The SQLite + HNSW instance over `dir`, its adapters at hand. */
function open(dir: string): Omit<Instance, 'datastore'> {
  const stores = sqliteStores({ path: join(dir, 'ragdesk.db') });
  const index = hnswIndex({ dir: join(dir, 'indexes'), flushAfterMs: Number.POSITIVE_INFINITY });
  return { ragdesk: createRagdesk({ ...stores, index, embeddings: localEmbeddings() }), retrieval: stores.retrieval, index };
}

/** `run` with the adapters' optional fast reads taken away: the generic path, as a store or index without them reads. */
async function generic<T>(instance: Instance, run: () => Promise<T>): Promise<T> {
  const store = instance.retrieval as unknown as Record<string, unknown>;
  const index = instance.index as unknown as Record<string, unknown>;
  const saved = { getChunkHits: store.getChunkHits, getChunkVectors: store.getChunkVectors, similarities: index.similarities };
  delete store.getChunkHits;
  delete store.getChunkVectors;
  delete index.similarities;
  try {
    return await run();
  } finally {
    Object.assign(store, { getChunkHits: saved.getChunkHits, getChunkVectors: saved.getChunkVectors });
    index.similarities = saved.similarities;
  }
}

/** Counts the index's answers to `similarities` (the fast path must be the one taken). */
function countSimilarities(index: VectorIndex): { answered: number } {
  const counter = { answered: 0 };
  const similarities = index.similarities!.bind(index);
  index.similarities = async (...args) => {
    const found = await similarities(...args);
    counter.answered += found.length;
    return found;
  };
  return counter;
}

function expectSameFragments(fast: readonly DocumentFragment[], reference: readonly DocumentFragment[], label: string): void {
  expect(fast.length, label).toBe(reference.length);
  expect(fast.length, label).toBeGreaterThan(0);
  fast.forEach((fragment, i) => {
    const expected = reference[i]!;
    expect(Object.keys(fragment), label).toEqual(Object.keys(expected));
    expect({ ...fragment, score: 0 }, label).toEqual({ ...expected, score: 0 });
    expect(Math.abs(fragment.score - expected.score), `${label}: ${fragment.chunk_id}`).toBeLessThanOrEqual(1e-6);
  });
}

async function expectSameAnswers(instance: Instance, label: string): Promise<void> {
  for (const mode of MODES) {
    for (const query of QUERIES) {
      for (const topK of [100, 7]) {
        const request = { query, topK, mode };
        const fast = await instance.datastore.query(request);
        const reference = await generic(instance, () => instance.datastore.query(request));
        expectSameFragments(fast, reference, `${label} ${mode} top ${topK} "${query}"`);
      }
    }
  }
}

/** Metadata with a `source` (which becomes the fragment's), or with a null one (which does not). */
function metadataOf(i: number): Record<string, string | number | boolean | null> {
  return i % 4 === 0 ? { source: `https://example.com/${i}`, rank: i, draft: i % 8 === 0 } : { topic: 'no source', source: null };
}

describe('query hits: the fast reads answer as the generic ones (sqlite + hnsw)', () => {
  const temp = tempDir();
  let instance: Instance;
  /** The documents' text by id. */
  const texts = new Map<string, string>();

  beforeAll(async () => {
    const opened = open(temp.dir);
    const datastore = await opened.ragdesk.datastores.create({ name: 'hits' });
    const passages = samplePassages(160, 3).map((text, i) =>
      i % 10 === 0 ? `${text}\n\n${samplePassages(30, 50 + i).join('\n\n')}` : text,
    );
    passages.forEach((text, i) => texts.set(`doc-${i}`, text));
    await datastore.upsert(
      passages.map((text, i) => ({
        id: `doc-${i}`,
        text,
        name: `doc-${i}.md`,
        // Citation fields from every place they come from: metadata.source, the name, custom ids.
        ...(i % 4 < 2 ? { metadata: metadataOf(i) } : {}),
        ...(i % 3 === 0 ? { custom_id: `tenant-${i % 2}` } : {}),
      })),
    );
    instance = { ...opened, datastore };
  });

  afterAll(async () => {
    await instance.ragdesk.close();
    temp.remove();
  });

  it('scores lexical hits from the index and reads narrow rows, with the same fragments', async () => {
    await instance.index.indexed();
    const counter = countSimilarities(instance.index);
    await expectSameAnswers(instance, 'indexed');
    expect(counter.answered).toBeGreaterThan(0);
  });

  it('after a document changes, the next query has its new text and similarity', async () => {
    const before = await instance.datastore.query({ query: 'zeppelin harbour lantern', topK: 5, mode: 'lexical' });
    expect(before.every((fragment) => !fragment.text.includes('zeppelin'))).toBe(true);
    await instance.datastore.update({
      id: 'doc-5',
      text: 'A zeppelin over the harbour lantern at dusk.',
      metadata: { source: 'changed.md' },
    });
    // Asked at once, while the index may still be inserting the new vector.
    for (const mode of ['lexical', 'hybrid'] as const) {
      const request = { query: 'zeppelin harbour lantern', topK: 5, mode };
      const [top] = await instance.datastore.query(request);
      expect(top).toMatchObject({ datasource_id: 'doc-5', text: 'A zeppelin over the harbour lantern at dusk.', source: 'changed.md' });
      expectSameFragments(await instance.datastore.query(request), await generic(instance, () => instance.datastore.query(request)), mode);
    }
    // The same text with new metadata: the chunk keeps its id, its datasource's fields change.
    const kept = (await instance.datastore.query({ query: 'telescope galaxy', topK: 1, mode: 'lexical' }))[0]!;
    await instance.datastore.update({ id: kept.datasource_id, text: texts.get(kept.datasource_id)!, metadata: { source: 'renamed.md' } });
    const [again] = await instance.datastore.query({ query: 'telescope galaxy', topK: 1, mode: 'lexical' });
    expect(again).toMatchObject({ chunk_id: kept.chunk_id, source: 'renamed.md', metadata: { source: 'renamed.md' } });
    await instance.index.indexed();
    await expectSameAnswers(instance, 'updated');
  });

  it('a failing similarities call fails the query instead of falling back to other scores', async () => {
    const similarities = instance.index.similarities.bind(instance.index);
    instance.index.similarities = () => Promise.reject(new RagdeskError('internal', 'the graph failed'));
    try {
      for (const mode of ['lexical', 'hybrid'] as const) {
        await expect(instance.datastore.query({ query: 'telescope galaxy', topK: 100, mode })).rejects.toMatchObject({ code: 'internal' });
      }
    } finally {
      instance.index.similarities = similarities;
    }
    expect((await instance.datastore.query({ query: 'telescope galaxy', topK: 100, mode: 'lexical' })).length).toBeGreaterThan(0);
  });

  it('a reopened instance answers the same while its index loads and once loaded', async () => {
    await instance.ragdesk.close();
    const reopened = open(temp.dir);
    instance = { ...reopened, datastore: (await reopened.ragdesk.datastores.list())[0]! };
    // The first queries run while the index may still read its vectors back from the store.
    await expectSameAnswers(instance, 'reopened');
    await instance.datastore.load();
    await expectSameAnswers(instance, 'loaded');
  });
});
