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
 * found in at most 5% of the chunks only (what the rare-4-gram query reads). Beside them, the arrays
 * a list over the 4-grams of the words index's stems would add, answered from the words index's own
 * postings: the 4-grams (packed), for each the stems holding it, its document frequency, and each
 * chunk's length in 4-grams (built here, not searched).
 */
import { basename } from 'node:path';
import { loadBeir } from '../adapters/cli/beir.js';
import { LexicalIndex, type IndexedChunk } from '../adapters/bm25/lexical-index.js';
import { scanWords, stem } from '../adapters/bm25/lexical-terms.js';
import { PackedStrings } from '../adapters/kit/packed-strings.js';
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

/** The arrays of a 4-gram → stems map over the texts' stems (see the file's comment). */
function stemGramArrays(count: number, textOf: (i: number) => string) {
  const stemNumbers = new Map<string, number>();
  const stemsOf = (text: string): string[] => {
    const stems: string[] = [];
    scanWords(text, (word) => stems.push(stem(word)));
    return stems;
  };
  for (let i = 0; i < count; i++)
    for (const term of stemsOf(textOf(i))) if (!stemNumbers.has(term)) stemNumbers.set(term, stemNumbers.size);
  const holders = new Map<string, number[]>();
  for (const [term, number] of stemNumbers) {
    for (const gram of gramCounts([term], GRAM).counts.keys()) {
      let list = holders.get(gram);
      if (list === undefined) holders.set(gram, (list = []));
      list.push(number);
    }
  }
  const grams = [...holders.keys()].sort();
  const gramNumbers = new Map(grams.map((gram, i) => [gram, i]));
  const starts = new Int32Array(grams.length + 1);
  const stems = new Int32Array([...holders.values()].reduce((sum, list) => sum + list.length, 0));
  grams.forEach((gram, i) => {
    const list = holders.get(gram) as number[];
    stems.set(list, starts[i]);
    starts[i + 1] = (starts[i] as number) + list.length;
  });
  const df = new Int32Array(grams.length);
  const lengths = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const analysed = gramCounts(stemsOf(textOf(i)), GRAM);
    lengths[i] = analysed.length;
    for (const gram of analysed.counts.keys()) df[gramNumbers.get(gram) as number]! += 1;
  }
  return { grams: PackedStrings.of(grams), starts, stems, df, lengths };
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

  const beforeWords = retainedMiB();
  const words = new LexicalIndex();
  for (let i = 0; i < count; i++) words.addText(chunkOf(i), textOf(i));
  words.trim();
  const wordsRetained = retainedMiB() - beforeWords;

  const beforeGrams = retainedMiB();
  const grams = new LexicalIndex();
  for (let i = 0; i < count; i++) {
    const analysed = gramCounts(foldedWords(textOf(i)), GRAM);
    for (const gram of [...analysed.counts.keys()]) if ((df.get(gram) ?? 0) > limit) analysed.counts.delete(gram);
    grams.add(chunkOf(i), analysed);
  }
  grams.trim();
  const gramsRetained = retainedMiB() - beforeGrams;
  const beforeMap = retainedMiB();
  const map = stemGramArrays(count, textOf);
  const mapRetained = retainedMiB() - beforeMap;
  const mapBytes = map.grams.serializedLength + map.starts.byteLength + map.stems.byteLength + map.df.byteLength + map.lengths.byteLength;
  const w = words.stats();
  const g = grams.stats();
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
    '4-grams of stems': map.grams.length,
    '4-gram-stem pairs': map.stems.length,
    'stem 4-gram map MiB (arrays)': (mapBytes / 2 ** 20).toFixed(1),
    'stem 4-gram map retained MiB': mapRetained.toFixed(1),
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
