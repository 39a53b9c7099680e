/**
 * The bm25 engine (adapters/bm25): the index exact against a brute-force scorer under random
 * writes, the tokenizer's folding rules, and, fed by the SQLite store, the index kept in step with
 * the rows (writes during a build, another connection's writes, reopen, snapshots).
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { sqliteStore } from '../../../adapters/sqlite/index.js';
import { LexicalIndex, type IndexedChunk } from '../../../adapters/bm25/lexical-index.js';
import { decodeSnapshot, encodeSnapshot, SNAPSHOT_FORMAT } from '../../../adapters/bm25/lexical-snapshot.js';
import { PackedStrings } from '../../../adapters/kit/packed-strings.js';
import { analyseText, queryStems, type AnalysedText } from '../../../adapters/bm25/lexical-terms.js';
import type { ChunkRecord, RetrievalFilter, ScoredId } from '../../../src/ports/records.js';
import type { Store } from '../../../src/ports/store.js';
import { makeChunk, makeChunks, makeDatasource, makeDatastore } from '../../../src/testing/fixtures.js';
import { seededRandom } from '../../../src/testing/random.js';
import { samplePassages } from '../../../src/testing/sample-texts.js';
import { setSliceClock, steppingClock } from '../../../src/util/slice-clock.js';
import { expectSameHits } from './same-hits.js';

/** A snapshot with one more document, `planted`, holding `word`: proves a search read the snapshot. */
function plantWord(bytes: Buffer, word: string): Buffer {
  const state = decodeSnapshot(bytes);
  if (state === null) throw new Error('not a snapshot');
  const index = LexicalIndex.fromState(state);
  index.add({ id: 'planted', datasourceId: state.sourceIds.at(0), customId: null }, analyseText(word));
  return encodeSnapshot(index.exportState());
}

/**
 * The same snapshot in an older format, written here from the layout those formats had: (4) the
 * strings in a JSON header and a term order array; (3) no term order; (2) postings as (slot, tf)
 * pairs of int32; (1) also no arrays of term bounds.
 */
function olderFormat(bytes: Buffer, format: 1 | 2 | 3 | 4): Buffer {
  const decoded = decodeSnapshot(bytes);
  if (decoded === null) throw new Error('not a snapshot');
  const state = { ...decoded, ids: decoded.ids.toArray(), sourceIds: decoded.sourceIds.toArray(), tenantIds: decoded.tenantIds.toArray() };
  const words = decoded.words.toArray();
  if (format === 3 || format === 4) {
    const { ids, sourceIds, tenantIds } = state;
    // Format 4's order: term numbers by JavaScript string order of their words.
    const termOrder = format === 4 ? Int32Array.from(words.keys()).sort((a, b) => (words[a]! < words[b]! ? -1 : 1)) : new Int32Array(0);
    const header = {
      ids,
      sourceIds,
      tenantIds,
      words,
      postingInts: state.postings.length,
      largeTfInts: state.largeTfs.length,
      ...(format === 4 ? { termOrderInts: termOrder.length } : {}),
    };
    const json = Buffer.from(JSON.stringify(header), 'utf8');
    const head = Buffer.alloc(Math.ceil((8 + json.length) / 4) * 4);
    head.writeUInt32LE(format, 0);
    head.writeUInt32LE(json.length, 4);
    json.copy(head, 8);
    const arrays = [
      state.lengths,
      state.sources,
      state.tenants,
      state.termStarts,
      state.maxTf,
      state.minLength,
      state.postings,
      state.largeTfs,
      termOrder,
    ];
    return Buffer.concat([head, ...arrays.map((array) => Buffer.from(array.buffer, array.byteOffset, array.byteLength))]);
  }
  const large = new Map<string, number>();
  for (let i = 0; i < state.largeTfs.length; i += 3) large.set(`${state.largeTfs[i]}:${state.largeTfs[i + 1]}`, state.largeTfs[i + 2]!);
  const pairs = new Int32Array(state.postings.length * 2);
  for (let term = 0; term < words.length; term++) {
    for (let i = state.termStarts[term]!; i < state.termStarts[term + 1]!; i++) {
      const slot = Math.floor(state.postings[i]! / 256);
      pairs[i * 2] = slot;
      pairs[i * 2 + 1] = large.get(`${term}:${slot}`) ?? state.postings[i]! % 256;
    }
  }
  const { ids, sourceIds, tenantIds } = state;
  const json = Buffer.from(JSON.stringify({ ids, sourceIds, tenantIds, words, postingInts: pairs.length }), 'utf8');
  const head = Buffer.alloc(Math.ceil((8 + json.length) / 4) * 4);
  head.writeUInt32LE(format, 0);
  head.writeUInt32LE(json.length, 4);
  json.copy(head, 8);
  const bounds = format === 2 ? [state.maxTf, state.minLength] : [];
  const arrays = [state.lengths, state.sources, state.tenants, state.termStarts, ...bounds, pairs];
  return Buffer.concat([head, ...arrays.map((array) => Buffer.from(array.buffer, array.byteOffset, array.byteLength))]);
}

interface Doc extends IndexedChunk {
  text: AnalysedText;
}

/** bm25 as the index defines it (Lucene idf, k1 1.2, b 0.75), scoring every document. */
function bruteForce(
  docs: ReadonlyMap<string, Doc>,
  words: readonly string[],
  topK: number,
  filter?: RetrievalFilter,
  weights?: readonly number[],
): ScoredId[] {
  const live = [...docs.values()];
  const average = live.reduce((sum, doc) => sum + doc.text.length, 0) / live.length;
  const frequency = new Map<string, number>();
  for (const doc of live) for (const word of doc.text.counts.keys()) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  const hits: ScoredId[] = [];
  for (const doc of live) {
    if (filter?.datasourceIds?.length && !filter.datasourceIds.includes(doc.datasourceId)) continue;
    if (filter?.customIds?.length && (doc.customId === null || !filter.customIds.includes(doc.customId))) continue;
    let score = 0;
    let matched = false;
    for (const [position, word] of words.entries()) {
      const tf = doc.text.counts.get(word);
      const weight = weights?.[position] ?? 1;
      if (tf === undefined || weight <= 0) continue;
      matched = true;
      const df = frequency.get(word) as number;
      const idf = weight * Math.log(1 + (live.length - df + 0.5) / (df + 0.5));
      score += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * doc.text.length) / average));
    }
    if (matched) hits.push({ id: doc.id, score });
  }
  return hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, topK);
}

describe('LexicalIndex', () => {
  /** Zipf-like words: a few very common ones (long lists, pruned by MaxScore) and a long tail. */
  function wordsOf(random: () => number, count: number): string[] {
    // Words the stemmer leaves alone, so counted words and raw text index the same terms.
    return Array.from({ length: count }, () => `w${Math.floor(random() ** 3 * 300)}`);
  }
  function analysed(words: readonly string[]): AnalysedText {
    const counts = new Map<string, number>();
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
    return { counts, length: words.length };
  }

  it('returns exactly the brute-force top k through random adds, removes, retags and filters', () => {
    const random = seededRandom(20261122);
    let checks = 0;
    for (let trial = 0; trial < 4; trial++) {
      const index = new LexicalIndex();
      const docs = new Map<string, Doc>();
      let next = 0;
      for (let step = 0; step < 1500; step++) {
        const roll = random();
        if (roll < 0.6 || docs.size < 10) {
          const words = wordsOf(random, 1 + Math.floor(random() * 30));
          // Now and then a word 250-300 times: tfs from 255 up are kept beside the postings.
          if (random() < 0.05) words.push(...Array<string>(250 + Math.floor(random() * 51)).fill(`w${Math.floor(random() * 20)}`));
          const doc: Doc = {
            id: `c${String(next++).padStart(5, '0')}`,
            datasourceId: `s${Math.floor(random() * 5)}`,
            customId: random() < 0.5 ? null : `t${Math.floor(random() * 3)}`,
            text: analysed(words),
          };
          // Both ways in: counted words, and raw text through the build's fast path.
          if (random() < 0.5) expect(index.add(doc, doc.text)).toBe(true);
          else expect(index.addText(doc, words.join(' '))).toBe(true);
          expect(index.addText(doc, 'again')).toBe(false);
          docs.set(doc.id, doc);
        } else if (roll < 0.8) {
          const ids = [...docs.keys()];
          const doc = docs.get(ids[Math.floor(random() * ids.length)] as string) as Doc;
          expect(index.remove(doc.id, doc.text)).toBe(true);
          docs.delete(doc.id);
        } else if (roll < 0.85) {
          const doc = [...docs.values()][Math.floor(random() * docs.size)] as Doc;
          doc.customId = random() < 0.3 ? null : `t${Math.floor(random() * 3)}`;
          index.retag(doc.id, doc.customId);
        } else {
          const words = [...new Set(wordsOf(random, 1 + Math.floor(random() * 8)))];
          const topK = 1 + Math.floor(random() * 12);
          const pick = random();
          const filter: RetrievalFilter | undefined =
            pick < 0.2
              ? { datasourceIds: ['s1', 's3'] }
              : pick < 0.35
                ? { customIds: ['t1'] }
                : pick < 0.4
                  ? { datasourceIds: ['s9'] }
                  : undefined;
          expectSameHits(index.search(words, topK, filter), bruteForce(docs, words, topK, filter), `trial ${trial} step ${step}`);
          checks++;
        }
      }
      expect(index.size).toBe(docs.size);
    }
    expect(checks).toBeGreaterThan(700);
  });

  it('scales each word by its weight (an expanded query), exactly as the brute-force scorer; weight 0 leaves a word out', () => {
    const random = seededRandom(20261128);
    const index = new LexicalIndex();
    const docs = new Map<string, Doc>();
    for (let i = 0; i < 400; i++) {
      const words = wordsOf(random, 1 + Math.floor(random() * 30));
      const doc: Doc = { id: `c${String(i).padStart(4, '0')}`, datasourceId: 's0', customId: null, text: analysed(words) };
      index.add(doc, doc.text);
      docs.set(doc.id, doc);
    }
    let reordered = 0;
    for (let query = 0; query < 200; query++) {
      const words = [...new Set(wordsOf(random, 2 + Math.floor(random() * 8)))];
      const weights = words.map(() => (random() < 0.15 ? 0 : 0.05 + random() * 2));
      const topK = 1 + Math.floor(random() * 15);
      const weighted = index.search(words, topK, undefined, weights);
      expectSameHits(weighted, bruteForce(docs, words, topK, undefined, weights), `query ${query}`);
      const plain = index.search(words, topK);
      if (plain.map((hit) => hit.id).join() !== weighted.map((hit) => hit.id).join()) reordered++;
    }
    // The weights change the ranking (a check that they reach the scores at all).
    expect(reordered).toBeGreaterThan(50);
  });

  it('stays exact after most documents are removed (slots renumbered, lists compacted)', () => {
    const random = seededRandom(7);
    const index = new LexicalIndex();
    const docs = new Map<string, Doc>();
    for (let i = 0; i < 4000; i++) {
      const doc: Doc = { id: `c${i}`, datasourceId: 's', customId: null, text: analysed(wordsOf(random, 20)) };
      index.add(doc, doc.text);
      docs.set(doc.id, doc);
      if (i % 97 !== 0) continue;
      // Kept, among removed documents: renumbering moves their slots, and their tfs (255 and up) with them.
      const big: Doc = {
        id: `big${i}`,
        datasourceId: 's',
        customId: null,
        text: analysed(Array<string>(255 + (i % 60)).fill(`w${i % 7}`)),
      };
      index.add(big, big.text);
      docs.set(big.id, big);
    }
    const before = index.stats().postings;
    for (let i = 0; i < 3500; i++) {
      const doc = docs.get(`c${(i * 7) % 4000}`);
      if (doc === undefined) continue;
      index.remove(doc.id, doc.text);
      docs.delete(doc.id);
    }
    // Renumbering dropped the removed documents' pairs, not just marked them.
    expect(index.stats().postings).toBeLessThan(before / 2);
    for (const words of [['w0'], ['w1', 'w250'], ['w2', 'w6'], ['w3', 'w4', 'w5', 'w299']]) {
      expectSameHits(index.search(words, 10), bruteForce(docs, words, 10), words.join(' '));
    }
    // The same index through a snapshot's bytes.
    const copy = LexicalIndex.fromState(decodeSnapshot(encodeSnapshot(index.exportState()))!);
    for (const words of [['w0'], ['w2', 'w6'], ['w3', 'w4', 'w5', 'w299']]) {
      expectSameHits(copy.search(words, 10), bruteForce(docs, words, 10), `snapshot: ${words.join(' ')}`);
    }
    expect(index.search(['w2'], 1)[0]?.id).toMatch(/^big/);
    expect(index.add({ id: 'c1', datasourceId: 's', customId: null }, analysed(['w0']))).toBe(docs.has('c1') ? false : true);
  });

  it('finds query terms by binary search in a snapshot’s ordered words, then through the map a write builds', () => {
    const index = new LexicalIndex();
    const docs = new Map<string, Doc>();
    const random = seededRandom(17);
    // '\ufa0e' (a CJK compatibility ideograph kept by the folding) orders before '𠀀' (U+20000) by
    // code point and by UTF-8 bytes, after it by UTF-16 units (JavaScript's <).
    const vocabulary = ['aardvark', 'Zebra', 'zz', 'échelle', 'mid', 'a', 'b10', 'b9', 'naïve', '中文', 'x-ray', '\ufa0e', '𠀀', 'a𠀀'];
    for (let i = 0; i < 300; i++) {
      const words = Array.from({ length: 3 + (i % 5) }, () => vocabulary[Math.floor(random() * vocabulary.length)]!);
      const doc: Doc = { id: `d${i}`, datasourceId: 's', customId: null, text: analysed(words) };
      index.add(doc, doc.text);
      docs.set(doc.id, doc);
    }
    const state = decodeSnapshot(encodeSnapshot(index.exportState()))!;
    expect(state.words.isStrictlyAscending()).toBe(true);
    expect(state.words.toArray().indexOf('\ufa0e')).toBeLessThan(state.words.toArray().indexOf('𠀀'));
    expect(state.words.length).toBe(new Set(vocabulary.map((word) => analysed([word]).counts.keys().next().value)).size);
    const queries = [...vocabulary.map((word) => [word]), ['nope'], ['0'], ['\uffff'], ['mid', 'zz', 'absent']];
    const loaded = LexicalIndex.fromState(state);
    for (const words of queries) expectSameHits(loaded.search(words, 50), bruteForce(docs, words, 50), `ordered: ${words.join(' ')}`);
    // Words out of order are not searched by halves: the map is built at once instead.
    const reversedWords = PackedStrings.of(state.words.toArray().reverse());
    const reversed = LexicalIndex.fromState({ ...decodeSnapshot(encodeSnapshot(index.exportState()))!, words: reversedWords });
    const renamed = new Map(state.words.toArray().map((word, term) => [word, reversedWords.at(term)]));
    for (const words of queries) {
      const asked = words.map((word) => renamed.get(word) ?? word);
      expectSameHits(reversed.search(asked, 50), bruteForce(docs, words, 50), `reversed: ${words.join(' ')}`);
    }
    // Writes after loading: a new word, and a removal.
    const added: Doc = { id: 'new', datasourceId: 's', customId: null, text: analysed(['quokka', 'mid']) };
    loaded.add(added, added.text);
    docs.set(added.id, added);
    const gone = docs.get('d3')!;
    loaded.remove(gone.id, gone.text);
    docs.delete(gone.id);
    for (const words of [...queries, ['quokka']])
      expectSameHits(loaded.search(words, 50), bruteForce(docs, words, 50), `written: ${words.join(' ')}`);
  });

  it('refuses a document past its slot limit with usage_limit, after reclaiming removed slots', () => {
    const index = new LexicalIndex(undefined, 3);
    const chunk = (id: string) => ({ id, datasourceId: 's', customId: null });
    for (const id of ['a', 'b', 'c']) index.addText(chunk(id), `word ${id}`);
    index.remove('b', analyseText('word b'));
    // Full, with one removed: renumbering frees its slot.
    expect(index.addText(chunk('d'), 'word d')).toBe(true);
    expect(() => index.addText(chunk('e'), 'word e')).toThrow(expect.objectContaining({ code: 'usage_limit' }) as Error);
    expect(index.search(['word'], 5).map((hit) => hit.id)).toEqual(['a', 'c', 'd']);
  });

  it('finds a word again after every document holding it was removed and its term dropped', () => {
    const index = new LexicalIndex();
    const first = { id: 'a', datasourceId: 's', customId: null };
    index.addText(first, 'Zeta particles');
    index.addText({ id: 'b', datasourceId: 's', customId: null }, 'other words');
    index.remove('a', analyseText('Zeta particles'));
    expect(index.search(['zeta'], 5)).toEqual([]); // the search drops the empty term
    index.addText({ id: 'c', datasourceId: 's', customId: null }, 'zeta again');
    expect(index.search(['zeta'], 5).map((hit) => hit.id)).toEqual(['c']);
  });

  it('breaks ties at the cut by id, also among thousands of equal scores', () => {
    const index = new LexicalIndex();
    const docs = new Map<string, Doc>();
    for (let i = 0; i < 3000; i++) {
      const doc: Doc = {
        id: `c${String(2999 - i).padStart(4, '0')}`,
        datasourceId: 's',
        customId: null,
        text: analysed(['same', 'words', 'here']),
      };
      index.add(doc, doc.text);
      docs.set(doc.id, doc);
    }
    expect(index.search(['same', 'words'], 5).map((hit) => hit.id)).toEqual(['c0000', 'c0001', 'c0002', 'c0003', 'c0004']);
    expectSameHits(index.search(['same'], 7), bruteForce(docs, ['same'], 7), 'ties');
  });

  it('gives a document the same score to the bit whatever k prunes, and every match when k exceeds them', () => {
    // Pruning moves a list from merged to searched and drops documents by bounds on their tfs
    // alone; neither may change the double a returned document gets.
    const random = seededRandom(99);
    const index = new LexicalIndex();
    const docs = new Map<string, Doc>();
    for (let i = 0; i < 3000; i++) {
      const words = wordsOf(random, 1 + Math.floor(random() ** 2 * 200));
      if (i % 151 === 0) words.push(...Array<string>(255 + (i % 40)).fill(`w${i % 5}`));
      const doc: Doc = { id: `c${i}`, datasourceId: `s${i % 3}`, customId: null, text: analysed(words) };
      index.add(doc, doc.text);
      docs.set(doc.id, doc);
    }
    for (let i = 0; i < 3000; i += 4) {
      index.remove(`c${i}`, (docs.get(`c${i}`) as Doc).text);
      docs.delete(`c${i}`);
    }
    for (let query = 0; query < 60; query++) {
      const words = [...new Set(wordsOf(random, 1 + Math.floor(random() * 6)))];
      const filter = query % 3 === 0 ? { datasourceIds: ['s1'] } : undefined;
      const all = index.search(words, 100_000, filter);
      expectSameHits(all, bruteForce(docs, words, 100_000, filter), `all: ${words.join(' ')}`);
      for (const k of [1, 3, 10, 50]) expect(index.search(words, k, filter), `k ${k}: ${words.join(' ')}`).toEqual(all.slice(0, k));
    }
  });
});

describe('lexical terms', () => {
  it('folds case, diacritics and compatibility forms, and stems like FTS5 porter', () => {
    expect([...analyseText('Télescopes RUNNING ﬁnding H₂O naïve').counts.keys()]).toEqual(['telescop', 'run', 'find', 'h2o', 'naiv']);
    // The ASCII fast path and the Unicode path agree on ASCII text.
    const ascii = 'Observatories observed 42 nebulae, e.g. M31; the observer-in-chief';
    const unicode = analyseText(`${ascii} café`);
    unicode.counts.delete('cafe');
    expect(unicode).toEqual({ ...analyseText(ascii), length: analyseText(ascii).length + 1 });
    expect(analyseText('one two two').length).toBe(3);
    expect(analyseText('').length).toBe(0);
  });

  it('drops stopwords and one-letter words from queries, keeps each stem once', () => {
    expect(queryStems('The running of the runners: a run!', 64)).toEqual(['run', 'runner']);
    // A run of an unspaced script: its characters and overlapping pairs.
    expect(queryStems('望远镜 télescope', 64)).toEqual(['望', '望远', '远', '远镜', '镜', 'telescop']);
    expect(queryStems('alpha beta gamma', 2)).toEqual(['alpha', 'beta']);
  });
});

describe('sqliteStore lexical index and the rows', () => {
  let dir: string;
  const stores: Store[] = [];
  const open = () => {
    const store = sqliteStore({ path: join(dir, 'store.db') });
    stores.push(store);
    return store;
  };
  const datastore = makeDatastore({ name: 'Lexical' });
  const QUERIES = ['telescope harbor', 'galaxy recipe compost', 'anchor oven', 'nebula', 'tide sailing garden bread'];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ragdesk-lexical-'));
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs SQL on the file through a connection of its own. */
  function sql<T>(statement: string, ...params: unknown[]): T[] {
    const db = new Database(join(dir, 'store.db'));
    try {
      const prepared = db.prepare(statement);
      return (prepared.reader ? prepared.all(...params) : (prepared.run(...params), [])) as T[];
    } finally {
      db.close();
    }
  }

  /** What a store that builds its index from the rows now answers: the reference. */
  async function fromRows(queries: readonly string[]): Promise<ScoredId[][]> {
    sql('DELETE FROM lexical_snapshots');
    const fresh = open();
    const answers = [];
    for (const query of queries) answers.push(await fresh.searchText({ datastoreId: datastore.id, query, topK: 20 }));
    return answers;
  }

  async function expectMatchesRows(store: Store): Promise<void> {
    const expected = await fromRows(QUERIES);
    for (const [i, query] of QUERIES.entries()) {
      expectSameHits(await store.searchText({ datastoreId: datastore.id, query, topK: 20 }), expected[i] as ScoredId[], query);
    }
  }

  it('applies writes committed while its first search is still building it', async () => {
    const store = open();
    await store.createDatastore(datastore);
    const sources = Array.from({ length: 30 }, (_, i) => makeDatasource(datastore, { name: `doc-${i}`, customId: `t${i % 3}` }));
    for (const source of sources) {
      await store.createDatasource(source);
      await store.replaceChunks(
        source.id,
        makeChunks(
          source,
          samplePassages(100, sources.indexOf(source) + 1).map((text) => text.repeat(3)),
        ),
      );
    }
    // Each page of the build counts as 5 ms of work: two pages per 10 ms step, so the build takes
    // many steps and the writes below land between them on any machine.
    setSliceClock(steppingClock(5));
    onTestFinished(() => setSliceClock(undefined));
    let built = false;
    const building = store.searchText({ datastoreId: datastore.id, query: 'telescope', topK: 5 }).then((hits) => {
      built = true;
      return hits;
    });
    const edited = sources[3]!;
    const kept = (await store.listChunks(edited.id)).slice(0, 50);
    const added = makeChunks(edited, samplePassages(20, 999)).map((chunk, i) => ({ ...chunk, id: `${chunk.id}-new`, position: 50 + i }));
    await store.replaceChunks(edited.id, [...kept, ...added]);
    await store.deleteDatasource(sources[7]!.id);
    const retagged = sources[11]!;
    await store.replaceChunks(
      retagged.id,
      (await store.listChunks(retagged.id)).map((chunk) => ({ ...chunk, customId: 'moved' })),
    );
    const late = makeDatasource(datastore, { name: 'late' });
    await store.createDatasource(late);
    await store.replaceChunks(late.id, [makeChunk(late, 0, 'The quokka telescope of the late harbor.')]);
    // Every write above only awaited settled promises: the build (which yields with setImmediate
    // between steps) cannot have finished yet.
    expect(built).toBe(false);
    await building;

    await expectMatchesRows(store);
    const moved = await store.searchText({
      datastoreId: datastore.id,
      query: 'telescope harbor',
      topK: 50,
      filter: { customIds: ['moved'] },
    });
    expect(moved.length).toBeGreaterThan(0);
    expect(moved.every((hit) => hit.id.startsWith(retagged.id))).toBe(true);
    expect((await store.searchText({ datastoreId: datastore.id, query: 'quokka', topK: 3 }))[0]?.id).toBe(
      `${late.id}#0-${(await store.listChunks(late.id))[0]!.hash.slice(0, 12)}`,
    );
  });

  it('follows a mix of replaces and deletes exactly as a rebuild from the rows would', async () => {
    const store = open();
    await store.createDatastore(datastore);
    const random = seededRandom(99);
    const sources = Array.from({ length: 8 }, (_, i) => makeDatasource(datastore, { name: `mix-${i}` }));
    for (const source of sources) await store.createDatasource(source);
    await store.searchText({ datastoreId: datastore.id, query: 'start', topK: 1 });
    const texts = samplePassages(400, 5);
    for (let round = 0; round < 40; round++) {
      const source = sources[Math.floor(random() * sources.length)]!;
      if (random() < 0.15) {
        await store.deleteDatasource(source.id);
        await store.createDatasource(source);
        continue;
      }
      const current = await store.listChunks(source.id);
      const keep = current.filter(() => random() < 0.6);
      const fresh = Array.from({ length: 1 + Math.floor(random() * 6) }, () => texts[Math.floor(random() * texts.length)]!);
      const next: ChunkRecord[] = [
        ...keep.map((chunk, position) => ({ ...chunk, position })),
        ...fresh.map((text, i) => makeChunk(source, keep.length + i, text)),
      ];
      await store.replaceChunks(source.id, [...new Map(next.map((chunk) => [chunk.id, chunk])).values()]);
    }
    await expectMatchesRows(store);
  });

  it('rebuilds when another connection wrote, and after reopening', async () => {
    const reader = open();
    const writer = open();
    await writer.createDatastore(datastore);
    const source = makeDatasource(datastore);
    await writer.createDatasource(source);
    await writer.replaceChunks(source.id, makeChunks(source, samplePassages(30, 3)));
    expect(await reader.searchText({ datastoreId: datastore.id, query: 'axolotl', topK: 3 })).toEqual([]);
    const rare = makeChunk(source, 30, 'An axolotl in the harbor.');
    await writer.replaceChunks(source.id, [...(await writer.listChunks(source.id)), rare]);
    expect((await reader.searchText({ datastoreId: datastore.id, query: 'axolotl', topK: 3 })).map((hit) => hit.id)).toEqual([rare.id]);
    // The reader's own write after the writer's: its index is stale, rebuilt, and then current.
    await reader.replaceChunks(
      source.id,
      (await reader.listChunks(source.id)).filter((chunk) => chunk.id !== rare.id),
    );
    expect(await reader.searchText({ datastoreId: datastore.id, query: 'axolotl', topK: 3 })).toEqual([]);
    await expectMatchesRows(reader);

    await reader.close();
    const reopened = open();
    await expectMatchesRows(reopened);
    await reopened.deleteDatastore(datastore.id);
    expect(await reopened.searchText({ datastoreId: datastore.id, query: 'telescope', topK: 3 })).toEqual([]);
  });

  it('saves a snapshot on close, loads it on reopen, and ignores one the rows moved past', async () => {
    const first = open();
    await first.createDatastore(datastore);
    const source = makeDatasource(datastore, { customId: 'tenant' });
    await first.createDatasource(source);
    await first.replaceChunks(source.id, makeChunks(source, samplePassages(60, 8)));
    await first.searchText({ datastoreId: datastore.id, query: 'telescope', topK: 1 });
    const { sequence } = await first.replaceChunks(source.id, (await first.listChunks(source.id)).slice(0, 40));
    await first.close();
    const saved = sql<{ chunk_sequence: number; size: number }>('SELECT chunk_sequence, length(data) AS size FROM lexical_snapshots');
    expect(saved).toEqual([{ chunk_sequence: sequence, size: expect.any(Number) }]);

    // Loaded, not rebuilt: a snapshot with a planted word answers with it (the rows do not hold it).
    const planted = open();
    const tampered = plantWord(sql<{ data: Buffer }>('SELECT data FROM lexical_snapshots')[0]!.data, 'zzplanted');
    sql('UPDATE lexical_snapshots SET data = ?', tampered);
    expect(await planted.searchText({ datastoreId: datastore.id, query: 'zzplanted', topK: 1 })).toEqual([
      { id: 'planted', score: expect.any(Number) },
    ]);
    await planted.close(); // unchanged since loaded: nothing written

    // The rows moved on after the snapshot (another connection wrote): rebuilt from rows, old row dropped.
    const other = open();
    await other.replaceChunks(source.id, (await other.listChunks(source.id)).slice(0, 30));
    await other.close();
    sql('UPDATE lexical_snapshots SET data = ?, chunk_sequence = ?', tampered, sequence);
    const reopened = open();
    expect(await reopened.searchText({ datastoreId: datastore.id, query: 'zzplanted', topK: 1 })).toEqual([]);
    expect(sql('SELECT datastore_id FROM lexical_snapshots')).toEqual([]);
    await expectMatchesRows(reopened);

    // A corrupt snapshot at the current sequence is ignored too.
    await reopened.close();
    sql('UPDATE lexical_snapshots SET data = ?', Buffer.from('not a snapshot'));
    await expectMatchesRows(open());
  });

  /** A datastore of 60 chunks whose snapshot (with a planted word) is saved; the store is closed. */
  async function savedWithPlantedWord(): Promise<{ source: ReturnType<typeof makeDatasource>; planted: Buffer; original: Buffer }> {
    const first = open();
    await first.createDatastore(datastore);
    const source = makeDatasource(datastore);
    await first.createDatasource(source);
    await first.replaceChunks(source.id, makeChunks(source, samplePassages(60, 8)));
    await first.searchText({ datastoreId: datastore.id, query: 'telescope', topK: 1 });
    await first.close();
    const original = sql<{ data: Buffer }>('SELECT data FROM lexical_snapshots')[0]!.data;
    const planted = plantWord(original, 'zzplanted');
    sql('UPDATE lexical_snapshots SET data = ?', planted);
    return { source, planted, original };
  }

  it('prepareTextSearch loads the index before any search: from the snapshot, or built from the rows', async () => {
    const { planted, original } = await savedWithPlantedWord();
    const search = (store: Store, query: string) => store.searchText({ datastoreId: datastore.id, query, topK: 1 });
    // Loaded by prepare: a snapshot changed on disk afterwards is not read again.
    const prepared = open();
    await prepared.prepareTextSearch?.(datastore.id);
    sql('UPDATE lexical_snapshots SET data = ?', original);
    expect(await search(prepared, 'zzplanted')).toEqual([{ id: 'planted', score: expect.any(Number) }]);
    await prepared.close();
    // Without prepare the first search reads what is on disk then: the check above can fail.
    sql('UPDATE lexical_snapshots SET data = ?', planted);
    const unprepared = open();
    sql('UPDATE lexical_snapshots SET data = ?', original);
    expect(await search(unprepared, 'zzplanted')).toEqual([]);
    await unprepared.close();

    // No snapshot: prepare builds the index from the rows, which close then saves.
    sql('DELETE FROM lexical_snapshots');
    await open().close();
    expect(sql('SELECT datastore_id FROM lexical_snapshots')).toEqual([]);
    const building = open();
    await building.prepareTextSearch?.(datastore.id);
    await building.prepareTextSearch?.('missing');
    await building.close();
    expect(sql('SELECT datastore_id FROM lexical_snapshots')).toEqual([{ datastore_id: datastore.id }]);
  });

  it.each([1, 2, 3, 4, 5] as const)(
    'does not read a snapshot of format %i (words cut by the former rules): builds from the rows, CJK included, and saves the current format',
    async (format) => {
      const first = open();
      await first.createDatastore(datastore);
      const source = makeDatasource(datastore);
      await first.createDatasource(source);
      // Written for this test: "We study Chinese retrieval in the library."
      await first.replaceChunks(source.id, makeChunks(source, [...samplePassages(20, 8), '我们在图书馆里学习中文检索。']));
      await first.searchText({ datastoreId: datastore.id, query: 'telescope', topK: 1 });
      await first.close();
      const planted = plantWord(sql<{ data: Buffer }>('SELECT data FROM lexical_snapshots')[0]!.data, 'zzplanted');
      const older = format === 5 ? Buffer.from(planted) : olderFormat(planted, format);
      if (format === 5) older.writeUInt32LE(5, 0);
      sql('UPDATE lexical_snapshots SET data = ?', older);
      const store = open();
      expect(await store.searchText({ datastoreId: datastore.id, query: 'zzplanted', topK: 1 })).toEqual([]);
      const chinese = await store.searchText({ datastoreId: datastore.id, query: '中文', topK: 1 });
      expect(chinese).toHaveLength(1);
      expect((await store.getChunks([chinese[0]!.id]))[0]!.text).toContain('中文检索');
      const answers = await Promise.all(QUERIES.map((query) => store.searchText({ datastoreId: datastore.id, query, topK: 20 })));
      await store.close();
      expect(sql<{ data: Buffer }>('SELECT data FROM lexical_snapshots')[0]!.data.readUInt32LE(0)).toBe(SNAPSHOT_FORMAT);
      const expected = await fromRows(QUERIES);
      QUERIES.forEach((query, i) => expectSameHits(answers[i]!, expected[i]!, query));
    },
  );

  it('a search waits for a snapshot still loading; a write landing meanwhile drops it for the rows', async () => {
    const { source } = await savedWithPlantedWord();
    const store = open();
    // The load yields before reading the snapshot: the write below lands during it.
    const searching = store.searchText({ datastoreId: datastore.id, query: 'zzplanted telescope', topK: 5 });
    await store.replaceChunks(source.id, (await store.listChunks(source.id)).slice(0, 50));
    const hits = await searching;
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.some((hit) => hit.id === 'planted')).toBe(false);
    await expectMatchesRows(store);
  });

  it('closing while a snapshot loads refuses the waiting search and keeps the snapshot', async () => {
    await savedWithPlantedWord();
    const store = open();
    const searching = store.searchText({ datastoreId: datastore.id, query: 'zzplanted', topK: 1 }).catch((error: unknown) => error);
    await store.close();
    expect(await searching).toMatchObject({ code: 'closed' });
    const reopened = open();
    expect(await reopened.searchText({ datastoreId: datastore.id, query: 'zzplanted', topK: 1 })).toEqual([
      { id: 'planted', score: expect.any(Number) },
    ]);
  });
});
