/**
 * A hybrid query fuses three lists when the store answers `searchTextLists`: the vector half at the
 * embedder's weight, bm25 over the words at 1, and bm25 over the 4-grams of the stems at 0.2 (min-max
 * scaled, docs/decisions/022-scoring-past-bm25.md); a store without it (Postgres) fuses two.
 * Checked on the real SQLite store, HNSW index and offline embedder, against the fusion of the
 * lists those adapters returned for the query.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { localEmbeddings } from '../../adapters/local/index.js';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import { createRagdesk, type Ragdesk } from '../../src/index.js';
import { fuseByScore } from '../../src/datastores/score-fusion.js';
import type { ScoredId } from '../../src/ports/records.js';
import type { VectorIndex } from '../../src/ports/index.js';
import type { RetrievalStore, TextSearchLists } from '../../src/ports/store.js';
import { samplePassages } from '../../src/testing/sample-texts.js';
import { tempDir } from '../helpers/setups.js';

interface Seen {
  vector: ScoredId[];
  lists: TextSearchLists | null;
  words: ScoredId[] | null;
}

describe('hybrid fusion with the 4-gram list', () => {
  let temp: ReturnType<typeof tempDir> | undefined;
  let ragdesk: Ragdesk | undefined;
  afterEach(async () => {
    await ragdesk?.close();
    temp?.remove();
  });

  /** An instance whose index and store report what they answered; `withLists: false` hides `searchTextLists`. */
  function recording(seen: Seen, withLists: boolean): Ragdesk {
    temp = tempDir();
    const { retrieval: store, accounts } = sqliteStores({ path: `${temp.dir}/ragdesk.db` });
    const index = hnswIndex({ dir: `${temp.dir}/indexes` });
    const recordingIndex: VectorIndex = {
      ...index,
      query: async (datastoreId, query) => (seen.vector = await index.query(datastoreId, query)),
    };
    const recordingStore = new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'searchTextLists') {
          if (!withLists) return undefined;
          return async (request: Parameters<RetrievalStore['searchText']>[0]) => (seen.lists = await target.searchTextLists!(request));
        }
        if (property === 'searchText') {
          return async (request: Parameters<RetrievalStore['searchText']>[0]) => (seen.words = await target.searchText(request));
        }
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    return createRagdesk({ retrieval: recordingStore, accounts, index: recordingIndex, embeddings: localEmbeddings() });
  }

  const TEXTS = [
    ...samplePassages(120, 5),
    'The zymurgy appendix explains how brewers keep their yeast.',
    'Photosynthetic algae bloom in the warm estuary each summer.',
    'The cartographer mapped the archipelago island by island.',
  ];
  const QUERIES = [
    'zymurgical brewing',
    'photosynthesis of algal blooms',
    'cartography of archipelagic islands',
    'the sailing crew trims the sail',
    'gardeners composting tomatoes',
  ];

  it('fuses vector, words and 4-grams of stems at 0.3, 1 and 0.2, exactly as the lists the adapters returned', async () => {
    const seen: Seen = { vector: [], lists: null, words: null };
    ragdesk = recording(seen, true);
    const datastore = await ragdesk.datastores.create({ name: 'kb' });
    await datastore.upsert(TEXTS.map((text) => ({ text })));
    let moved = 0;
    for (const query of QUERIES) {
      seen.lists = null;
      const fragments = await datastore.query({ query, mode: 'hybrid', topK: 10 });
      const lists = seen.lists as TextSearchLists | null;
      expect(lists, query).not.toBeNull();
      const expected = fuseByScore([
        { hits: seen.vector, weight: 0.3 },
        { hits: lists!.words, weight: 1 },
        { hits: lists!.stemGrams, weight: 0.2 },
      ]).slice(0, 10);
      expect(
        fragments.map((fragment) => fragment.chunk_id),
        query,
      ).toEqual(expected.map((hit) => hit.id));
      fragments.forEach((fragment, i) => expect(fragment.fusion_score, query).toBeCloseTo(expected[i]!.score, 12));
      const twoLists = fuseByScore([
        { hits: seen.vector, weight: 0.3 },
        { hits: lists!.words, weight: 1 },
      ]).slice(0, 10);
      if (twoLists.map((hit) => `${hit.id} ${hit.score}`).join() !== expected.map((hit) => `${hit.id} ${hit.score}`).join()) moved++;
    }
    // The third list changes the fused scores of these queries (the check is not of two lists alone).
    expect(moved).toBeGreaterThanOrEqual(2);
    // The variant of a word no chunk holds still finds the chunk holding the word.
    const [first] = await datastore.query({ query: 'zymurgical', mode: 'hybrid', topK: 3 });
    expect(first?.text).toContain('zymurgy');
    expect(first?.lexical_score).toBeNull();
    // Lexical mode stays the words list alone.
    expect(await datastore.query({ query: 'zymurgical', mode: 'lexical', topK: 3 })).toEqual([]);
  });

  it('fuses the vector and words lists alone when the store has no searchTextLists', async () => {
    const seen: Seen = { vector: [], lists: null, words: null };
    ragdesk = recording(seen, false);
    const datastore = await ragdesk.datastores.create({ name: 'kb' });
    await datastore.upsert(TEXTS.map((text) => ({ text })));
    for (const query of QUERIES) {
      const fragments = await datastore.query({ query, mode: 'hybrid', topK: 10 });
      const expected = fuseByScore([
        { hits: seen.vector, weight: 0.3 },
        { hits: seen.words!, weight: 1 },
      ]).slice(0, 10);
      expect(
        fragments.map((fragment) => fragment.chunk_id),
        query,
      ).toEqual(expected.map((hit) => hit.id));
    }
    expect(seen.lists).toBeNull();
  });
});
