/**
 * bench:ngram-memory — what a 4-gram bm25 index would add to a datastore's memory beside the words
 * index, before building one into the store (docs/decisions/022-scoring-past-bm25.md).
 *
 *   npm run build && node --expose-gc dist/benchmarks/ngram-memory.js [--chunks 100000] [--dataset <BEIR folder>]
 *
 * Each index is measured as what it retains: the growth of V8's used heap plus array buffers between
 * two full collections around its build (anonymous RSS moves with the garbage a build leaves and
 * the heap V8 keeps for it, so it does not isolate one structure), beside the index's own count of
 * the bytes of its arrays.
 * Corpora: bench:scale's synthetic chunks (`--chunks`, the corpus of the 100k memory goal), and, with
 * `--dataset`, a BEIR corpus's documents (title and text, one document one chunk). The 4-gram index
 * is the form decision 022 describes: the store's `LexicalIndex` holding the postings of the 4-grams
 * found in at most 5% of the chunks only (what the rare-4-gram query reads). Beside them, the list
 * the store keeps over the 4-grams of the words index's stems, answered from its own postings (the
 * 4-grams packed, for each the stems holding it and its document frequency, each chunk's length in
 * 4-grams: adapters/bm25/stem-grams.ts), as the retained growth of the store's `LexicalIndex` over
 * the same index without that list; and that index's snapshot loaded with the list stored
 * (format 7) or derived from the postings (format 6).
 */
import { basename } from 'node:path';
import { loadBeir } from '../adapters/cli/beir.js';
import { LexicalIndex, type IndexedChunk, type LexicalIndexState } from '../adapters/bm25/lexical-index.js';
import { decodeSnapshot, encodeSnapshot } from '../adapters/bm25/lexical-snapshot.js';
import type { StemGramState } from '../adapters/bm25/stem-grams.js';
import { foldedWords, gramCounts } from './lib/char-grams.js';
import { scaleCorpus } from './lib/scale-corpus.js';
import { flags, printTable, writeResult, type Row } from './lib/report.js';

const args = flags(process.argv.slice(2));
const GRAM = 4;
/** The query reads only 4-grams in at most this share of the chunks, so only their postings are kept. */
const MAX_SHARE = 0.05;

/** Live heap plus array buffers after two full collections, MiB. */
function retainedMiB(): number {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error('run with node --expose-gc');
  collect();
  collect();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return (heapUsed + arrayBuffers) / 2 ** 20;
}

/** Milliseconds of `run`, median of three. */
function medianMs(run: () => unknown): number {
  const times: number[] = [];
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    run();
    times.push(performance.now() - started);
  }
  return times.sort((x, y) => x - y)[1] as number;
}

/** Format 7 bytes as format 6: its 20-byte header and the words index's data, without the 4-gram list. */
function wordsOnlySnapshot(bytes: Buffer, state: LexicalIndexState): Buffer {
  const grams = state.stemGrams as StemGramState;
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

/** Builds the words index, then the rare-4-gram index, over `count` texts from `textOf`. */
function measure(corpus: string, count: number, textOf: (i: number) => string): Row {
  const chunkOf = (i: number): IndexedChunk => ({ id: `chunk-${i}`, datasourceId: `source-${i}`, customId: null });
  const df = new Map<string, number>();
  let allGramPostings = 0;
  for (let i = 0; i < count; i++) {
    for (const gram of gramCounts(foldedWords(textOf(i)), GRAM).counts.keys()) df.set(gram, (df.get(gram) ?? 0) + 1);
  }
  for (const n of df.values()) allGramPostings += n;
  const limit = MAX_SHARE * count;

  const beforeWordsOnly = retainedMiB();
  // Built in a function of its own, so nothing holds it once measured.
  const wordsOnly = (() => {
    const index = new LexicalIndex(undefined, undefined, false);
    for (let i = 0; i < count; i++) index.addText(chunkOf(i), textOf(i));
    index.trim();
    return { retained: retainedMiB() - beforeWordsOnly, stats: index.stats() };
  })();
  const wordsRetained = wordsOnly.retained;
  const w = wordsOnly.stats;

  // The store's index: the words and the list over the 4-grams of their stems (adapters/bm25/stem-grams.ts).
  const beforeWords = retainedMiB();
  const words = new LexicalIndex();
  for (let i = 0; i < count; i++) words.addText(chunkOf(i), textOf(i));
  words.trim();
  const withGramsRetained = retainedMiB() - beforeWords;
  const stemGrams = words.stemGramStats();

  const beforeGrams = retainedMiB();
  const grams = new LexicalIndex(undefined, undefined, false);
  for (let i = 0; i < count; i++) {
    const analysed = gramCounts(foldedWords(textOf(i)), GRAM);
    for (const gram of [...analysed.counts.keys()]) if ((df.get(gram) ?? 0) > limit) analysed.counts.delete(gram);
    grams.add(chunkOf(i), analysed);
  }
  grams.trim();
  const gramsRetained = retainedMiB() - beforeGrams;
  const g = grams.stats();
  // Last: the snapshots and loads leave garbage that would blur the retained figures above.
  const state = words.exportState();
  const snapshot = encodeSnapshot(state);
  const formatSix = wordsOnlySnapshot(snapshot, state);
  const loadMs = medianMs(() => LexicalIndex.fromState(decodeSnapshot(snapshot) as LexicalIndexState));
  const deriveMs = medianMs(() => LexicalIndex.fromState(decodeSnapshot(formatSix) as LexicalIndexState));
  return {
    corpus,
    chunks: count,
    'words postings': w.postings,
    'words MiB (arrays)': (w.bytes / 2 ** 20).toFixed(1),
    'words retained MiB': wordsRetained.toFixed(1),
    '4-gram postings, all': allGramPostings,
    '4-gram postings, <= 5%': g.postings,
    '4-grams <= 5% MiB (arrays)': (g.bytes / 2 ** 20).toFixed(1),
    '4-grams <= 5% retained MiB': gramsRetained.toFixed(1),
    '4-grams / words (retained)': (gramsRetained / wordsRetained).toFixed(2),
    '4-grams of stems': stemGrams.grams,
    '4-gram-stem pairs': stemGrams.holders,
    'stem 4-gram list MiB (arrays)': (stemGrams.bytes / 2 ** 20).toFixed(1),
    'words + stem 4-grams retained MiB': withGramsRetained.toFixed(1),
    'stem 4-gram list retained MiB': (withGramsRetained - wordsRetained).toFixed(1),
    'snapshot MiB (format 7 / 6)': `${(snapshot.length / 2 ** 20).toFixed(1)} / ${(formatSix.length / 2 ** 20).toFixed(1)}`,
    'load ms, format 7 (stored list)': loadMs.toFixed(0),
    'load ms, format 6 (list derived)': deriveMs.toFixed(0),
  };
}

function main(): void {
  const rows: Row[] = [];
  const chunks = Number(args.get('chunks') ?? 100_000);
  if (chunks > 0) {
    const corpus = scaleCorpus(chunks);
    rows.push(measure('bench:scale synthetic', chunks, (i) => corpus.chunk(i).text));
  }
  const folder = args.get('dataset');
  if (folder) {
    const dataset = loadBeir(folder, args.get('split') ?? 'test');
    const texts = dataset.corpus.map((document) => `${document.title} ${document.text}`);
    rows.push(measure(basename(folder), texts.length, (i) => texts[i] as string));
  }
  printTable(`Memory of a ${GRAM}-gram index (grams in <= ${MAX_SHARE * 100}% of chunks) beside the words index`, rows);
  writeResult('ngram-memory', { gram: GRAM, maxShare: MAX_SHARE, rows });
}

main();
