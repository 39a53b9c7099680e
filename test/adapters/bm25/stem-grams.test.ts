/**
 * The list over the 4-grams of the stems (adapters/bm25/stem-grams.ts), answered from the words
 * index's postings: exact against bm25 scoring every document's 4-grams, written out here from the
 * definition, through random adds, removes, retags, filters, slot renumbering, trims and snapshots
 * (format 7, and format 6 from which the list is derived).
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { sqliteStore } from '../../../adapters/sqlite/index.js';
import { LexicalIndex, type IndexedChunk, type LexicalIndexState } from '../../../adapters/bm25/lexical-index.js';
import { decodeSnapshot, encodeSnapshot, isCurrentFormat, SNAPSHOT_FORMAT } from '../../../adapters/bm25/lexical-snapshot.js';
import { analyseText, type AnalysedText } from '../../../adapters/bm25/lexical-terms.js';
import type { RetrievalFilter, ScoredId } from '../../../src/ports/records.js';
import type { Store } from '../../../src/ports/store.js';
import { makeChunks, makeDatasource, makeDatastore } from '../../../src/testing/fixtures.js';
import { samplePassages } from '../../../src/testing/sample-texts.js';
import { seededRandom } from '../../../src/testing/random.js';
import { ENGLISH_STOPWORDS } from '../../../src/text/stopwords.js';
import { expectSameHits } from './same-hits.js';

interface Doc extends IndexedChunk {
  text: string;
  analysed: AnalysedText;
}

/** A stem's 4-grams, by the definition: code points of `<stem>`, none for one character or a stopword. */
function gramsOf(stem: string): string[] {
  const points = Array.from(stem);
  if (points.length < 2 || ENGLISH_STOPWORDS.has(stem)) return [];
  const marked = ['<', ...points, '>'];
  const grams: string[] = [];
  for (let i = 0; i + 4 <= marked.length; i++) grams.push(marked.slice(i, i + 4).join(''));
  return grams;
}

function gramCounts(stems: Iterable<[string, number]>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [stem, tf] of stems) for (const gram of gramsOf(stem)) counts.set(gram, (counts.get(gram) ?? 0) + tf);
  return counts;
}

/** bm25 (Lucene idf, k1 1.2, b 0.75) over every live document's 4-grams, the query's 4-grams in at most 5% of them. */
function bruteForce(docs: ReadonlyMap<string, Doc>, queryStems: readonly string[], depth: number, filter?: RetrievalFilter): ScoredId[] {
  const live = [...docs.values()].map((doc) => ({ doc, grams: gramCounts(doc.analysed.counts) }));
  const lengthOf = (grams: Map<string, number>) => [...grams.values()].reduce((sum, n) => sum + n, 0);
  const average = live.reduce((sum, { grams }) => sum + lengthOf(grams), 0) / live.length;
  const df = new Map<string, number>();
  for (const { grams } of live) for (const gram of grams.keys()) df.set(gram, (df.get(gram) ?? 0) + 1);
  const query = gramCounts(queryStems.map((stem) => [stem, 1]));
  const hits: ScoredId[] = [];
  for (const { doc, grams } of live) {
    if (filter?.datasourceIds?.length && !filter.datasourceIds.includes(doc.datasourceId)) continue;
    if (filter?.customIds?.length && (doc.customId === null || !filter.customIds.includes(doc.customId))) continue;
    let score = 0;
    let matched = false;
    for (const [gram, weight] of query) {
      const n = df.get(gram) ?? 0;
      const tf = grams.get(gram) ?? 0;
      if (n === 0 || n > 0.05 * live.length || tf === 0) continue;
      matched = true;
      const idf = weight * Math.log(1 + (live.length - n + 0.5) / (n + 0.5));
      score += idf * ((tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * lengthOf(grams)) / average)));
    }
    if (matched) hits.push({ id: doc.id, score });
  }
  return hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, depth);
}

/**
 * Words over a few letters, so stems share many 4-grams and most 4-grams are in few documents;
 * now and then a stopword, a one-letter word, a word beyond U+FFFF or a long repeated pattern
 * (one 4-gram more than 31 times in one stem).
 */
function wordOf(random: () => number): string {
  const roll = random();
  if (roll < 0.04) return ['the', 'and', 'of', 'x', 'q'][Math.floor(random() * 5)] as string;
  if (roll < 0.05) return `𝒳${'ab'[Math.floor(random() * 2)]}𝒴`;
  if (roll < 0.055) return 'ab'.repeat(20 + Math.floor(random() * 30));
  const letters = 'abcdefghij';
  const length = 2 + Math.floor(random() ** 2 * 9);
  let word = '';
  for (let i = 0; i < length; i++) word += letters[Math.floor(random() ** 1.5 * letters.length)];
  return word;
}

function textOf(random: () => number): string {
  return Array.from({ length: 1 + Math.floor(random() * 25) }, () => wordOf(random)).join(' ');
}

/** A query's distinct stems, as lexical-terms gives them. */
function queryOf(random: () => number, docs: ReadonlyMap<string, Doc>): string[] {
  const stems = new Set<string>();
  const all = [...docs.values()];
  for (let i = 1 + Math.floor(random() * 5); i > 0; i--) {
    const doc = all[Math.floor(random() * all.length)];
    const words = doc === undefined ? [] : [...doc.analysed.counts.keys()];
    stems.add(random() < 0.7 && words.length > 0 ? (words[Math.floor(random() * words.length)] as string) : wordOf(random));
  }
  return [...stems];
}

function filterOf(random: () => number): RetrievalFilter | undefined {
  const pick = random();
  return pick < 0.2
    ? { datasourceIds: ['s1', 's3'] }
    : pick < 0.35
      ? { customIds: ['t1'] }
      : pick < 0.4
        ? { datasourceIds: ['s9'] }
        : undefined;
}

/** A format 7 snapshot rewritten as format 6: a 20-byte header (no 4-gram counts) and the words index's data alone. */
function formatSix(bytes: Buffer): Buffer {
  const grams = (decodeSnapshot(bytes) as LexicalIndexState).stemGrams!;
  const gramBytes =
    grams.lengths.byteLength +
    grams.df.byteLength +
    grams.holderStarts.byteLength +
    grams.holders.byteLength +
    grams.grams.serializedLength;
  const six = Buffer.concat([bytes.subarray(0, 20), bytes.subarray(28, bytes.length - gramBytes)]);
  six.writeUInt32LE(6, 0);
  return six;
}

/** The same index through a snapshot's bytes; `wordsOnly` leaves the 4-gram list out (format 6), so the load derives it. */
function reloaded(index: LexicalIndex, wordsOnly: boolean): LexicalIndex {
  const bytes = encodeSnapshot(index.exportState());
  const state = decodeSnapshot(bytes) as LexicalIndexState;
  expect(state.stemGrams).toBeDefined();
  if (!wordsOnly) return LexicalIndex.fromState(state);
  const six = formatSix(bytes);
  expect(isCurrentFormat(six)).toBe(false);
  const decoded = decodeSnapshot(six) as LexicalIndexState;
  expect(decoded.stemGrams).toBeUndefined();
  return LexicalIndex.fromState(decoded);
}

describe('the list over the 4-grams of the stems', () => {
  it('returns exactly the brute-force list through random adds, removes, retags, filters, trims and snapshots', () => {
    const random = seededRandom(20261128);
    let checks = 0;
    let nonEmpty = 0;
    for (let trial = 0; trial < 4; trial++) {
      let index = new LexicalIndex();
      // Two trials as a build from rows: document frequencies counted at the first trim or search.
      if (trial >= 2) index.deferStemGramCounts();
      const docs = new Map<string, Doc>();
      let next = 0;
      for (let step = 0; step < 900; step++) {
        const roll = random();
        if (roll < 0.55 || docs.size < 30) {
          const text = textOf(random);
          const doc: Doc = {
            id: `c${String(next++).padStart(5, '0')}`,
            datasourceId: `s${Math.floor(random() * 5)}`,
            customId: random() < 0.5 ? null : `t${Math.floor(random() * 3)}`,
            text,
            analysed: analyseText(text),
          };
          if (random() < 0.5) index.add(doc, doc.analysed);
          else index.addText(doc, text);
          docs.set(doc.id, doc);
        } else if (roll < 0.75) {
          const ids = [...docs.keys()];
          const doc = docs.get(ids[Math.floor(random() * ids.length)] as string) as Doc;
          expect(index.remove(doc.id, doc.analysed)).toBe(true);
          docs.delete(doc.id);
        } else if (roll < 0.8) {
          const doc = [...docs.values()][Math.floor(random() * docs.size)] as Doc;
          doc.customId = random() < 0.3 ? null : `t${Math.floor(random() * 3)}`;
          index.retag(doc.id, doc.customId);
        } else if (roll < 0.81) {
          index.trim();
        } else if (roll < 0.82) {
          index = reloaded(index, random() < 0.5);
        } else {
          const stems = queryOf(random, docs);
          const depth = 1 + Math.floor(random() * 30);
          const filter = filterOf(random);
          const expected = bruteForce(docs, stems, depth, filter);
          expectSameHits(index.searchStemGrams(stems, depth, filter), expected, `trial ${trial} step ${step} ${stems.join(' ')}`);
          checks++;
          if (expected.length > 0) nonEmpty++;
        }
      }
    }
    expect(checks).toBeGreaterThan(300);
    // Most queries find something: the comparison is not between two empty lists.
    expect(nonEmpty).toBeGreaterThan(checks * 0.6);
  });

  it('stays exact after most documents are removed (slots renumbered) and terms dropped, then through both snapshot formats', () => {
    const random = seededRandom(7);
    const index = new LexicalIndex();
    index.deferStemGramCounts();
    const docs = new Map<string, Doc>();
    for (let i = 0; i < 3000; i++) {
      const text = textOf(random);
      const doc: Doc = {
        id: `c${String(i).padStart(5, '0')}`,
        datasourceId: `s${i % 4}`,
        customId: null,
        text,
        analysed: analyseText(text),
      };
      index.addText(doc, text);
      docs.set(doc.id, doc);
    }
    index.trim();
    for (let i = 0; i < 2600; i++) {
      const doc = docs.get(`c${String((i * 7) % 3000).padStart(5, '0')}`);
      if (doc === undefined) continue;
      index.remove(doc.id, doc.analysed);
      docs.delete(doc.id);
    }
    // Words only the removed documents had: their terms are dropped by searches meeting them, and new ones come in.
    for (let i = 0; i < 50; i++) {
      const text = `${textOf(random)} zz${i}zz`;
      const doc: Doc = { id: `n${i}`, datasourceId: 's1', customId: null, text, analysed: analyseText(text) };
      index.addText(doc, text);
      docs.set(doc.id, doc);
    }
    const queries = Array.from({ length: 60 }, () => queryOf(random, docs));
    queries.push(['zz3zz', 'zz40zz']);
    for (const stems of queries) {
      index.search(stems, 5);
      expectSameHits(index.searchStemGrams(stems, 20), bruteForce(docs, stems, 20), stems.join(' '));
    }
    for (const wordsOnly of [false, true]) {
      const copy = reloaded(index, wordsOnly);
      for (const stems of queries) {
        const filter: RetrievalFilter = { datasourceIds: ['s1', 's2'] };
        expectSameHits(
          copy.searchStemGrams(stems, 20, filter),
          bruteForce(docs, stems, 20, filter),
          `${wordsOnly ? 'format 6' : 'format 7'}: ${stems.join(' ')}`,
        );
      }
      // A loaded list follows writes: a new document with a new 4-gram is its only hit.
      const doc: Doc = { id: 'late', datasourceId: 's1', customId: null, text: 'qqqqq abc', analysed: analyseText('qqqqq abc') };
      copy.addText(doc, doc.text);
      expect(copy.searchStemGrams(['qqqqq'], 5).map((hit) => hit.id)).toEqual(['late']);
    }
  });

  it('answers nothing for a query without 4-grams, stopwords and one-letter stems, or 4-grams in more than 5% of the chunks', () => {
    const index = new LexicalIndex();
    for (let i = 0; i < 40; i++)
      index.addText({ id: `c${i}`, datasourceId: 's', customId: null }, i === 0 ? 'the rare word' : 'common word');
    expect(index.searchStemGrams(['the', 'x'], 10)).toEqual([]);
    // "word" is in every chunk: its 4-grams are all too common.
    expect(index.searchStemGrams(['word'], 10)).toEqual([]);
    expect(index.searchStemGrams(['rare'], 10).map((hit) => hit.id)).toEqual(['c0']);
  });

  it('is exact for 4-grams of other scripts (Greek, Cyrillic, beyond U+FFFF) through trims, snapshots and later writes', () => {
    const random = seededRandom(11);
    const letters = ['α', 'β', 'γ', 'δ', 'ж', 'з', '𐌰', '𐌱', 'a'];
    const word = () => Array.from({ length: 2 + Math.floor(random() * 5) }, () => letters[Math.floor(random() * letters.length)]).join('');
    let index = new LexicalIndex();
    index.deferStemGramCounts();
    const docs = new Map<string, Doc>();
    let checks = 0;
    for (let step = 0; step < 1200; step++) {
      const roll = random();
      if (roll < 0.7 || docs.size < 20) {
        const text = Array.from({ length: 1 + Math.floor(random() * 8) }, word).join(' ');
        const doc: Doc = { id: `c${String(step).padStart(5, '0')}`, datasourceId: 's', customId: null, text, analysed: analyseText(text) };
        index.addText(doc, text);
        docs.set(doc.id, doc);
      } else if (roll < 0.8) {
        const doc = [...docs.values()][Math.floor(random() * docs.size)] as Doc;
        index.remove(doc.id, doc.analysed);
        docs.delete(doc.id);
      } else if (roll < 0.83) {
        index.trim();
      } else if (roll < 0.86) {
        index = reloaded(index, random() < 0.5);
      } else {
        const stems = queryOf(random, docs);
        const expected = bruteForce(docs, stems, 10);
        expectSameHits(index.searchStemGrams(stems, 10), expected, `step ${step} ${stems.join(' ')}`);
        if (expected.length > 0) checks++;
      }
    }
    expect(checks).toBeGreaterThan(100);
  });

  it('keeps the smallest ids among equal scores at the cut, whatever order the chunks came in', () => {
    const random = seededRandom(3);
    const index = new LexicalIndex();
    const tied = Array.from({ length: 30 }, (_, i) => `t${String(i).padStart(2, '0')}`).sort(() => random() - 0.5);
    for (const id of tied) index.addText({ id, datasourceId: 's', customId: null }, 'zebra crossing');
    for (let i = 0; i < 700; i++) index.addText({ id: `f${i}`, datasourceId: 's', customId: null }, 'filler words only');
    index.addText({ id: 'zz-best', datasourceId: 's', customId: null }, 'zebra zebra');
    expect(index.searchStemGrams(['zebra'], 6).map((hit) => hit.id)).toEqual(['zz-best', 't00', 't01', 't02', 't03', 't04']);
    const all = index.searchStemGrams(['zebra'], 100);
    expect(all).toHaveLength(31);
    expect(new Set(all.slice(1).map((hit) => hit.score)).size).toBe(1);
  });

  it('the SQLite store answers it from a saved snapshot (format 7), and from a format 6 one, then saves format 7', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ragdesk-stem-grams-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'store.db');
    const datastore = makeDatastore({ name: 'Grams' });
    const source = makeDatasource(datastore);
    const queries = ['telescopic harbors', 'galactic recipes composting', 'zymurgical ovens', 'nebulous zymurgist'];
    const listsOf = async (store: Store) => {
      const answers = [];
      for (const query of queries) answers.push(await store.searchTextLists!({ datastoreId: datastore.id, query, topK: 20 }));
      return answers;
    };
    const snapshot = () => {
      const db = new Database(path);
      try {
        return (db.prepare('SELECT data FROM lexical_snapshots').get() as { data: Buffer }).data;
      } finally {
        db.close();
      }
    };
    const first = sqliteStore({ path });
    await first.createDatastore(datastore);
    await first.createDatasource(source);
    await first.replaceChunks(source.id, makeChunks(source, [...samplePassages(300, 8), 'The zymurgy appendix, for brewers.']));
    const built = await listsOf(first);
    expect(built.map((lists) => lists.stemGrams.length > 0)).toEqual([false, false, true, true]);
    await first.close();
    expect(snapshot().readUInt32LE(0)).toBe(SNAPSHOT_FORMAT);

    const loaded = sqliteStore({ path });
    expect(await listsOf(loaded)).toEqual(built);
    await loaded.close();

    const db = new Database(path);
    db.prepare('UPDATE lexical_snapshots SET data = ?').run(formatSix(snapshot()));
    db.close();
    const derived = sqliteStore({ path });
    expect(await listsOf(derived)).toEqual(built);
    await derived.close();
    expect(snapshot().readUInt32LE(0)).toBe(SNAPSHOT_FORMAT);
  });
});
