/**
 * bench:scoring-cv — scoring ideas past the default hybrid, by cross-validation on a BEIR split.
 *
 *   npm run bench:scoring-cv -- --dataset "$RAGDESK_DATASETS_DIR/datasets/scifact" [--split train] [--folds 5]
 *
 * Indexes the corpus once through the public API (embedded default) to get its chunks, then scores
 * every candidate offline on those chunks: the vector half by exact cosine over offline-embedder
 * vectors (variants of its features), the lexical half by exhaustive bm25 over the store's own
 * analyser (bm25, BM25+, BM25L), an optional third list by bm25 over character n-grams of words
 * (or of their stems), fusion by min-max, z-score or max scaling at several vector weights, and
 * pseudo-relevance feedback chosen from the fused top: Rocchio on the query vector (re-queried,
 * then re-fused) and RM3 on the bm25 query. Per fold, the candidate with the best mean nDCG@10 on the other folds is
 * scored on the held-out fold; the first candidate is the shipped default.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { openRagdesk } from '../adapters/node.js';
import { loadBeir, type BeirDataset } from '../adapters/cli/beir.js';
import { analyseText, queryStems, scanWords, stem } from '../adapters/bm25/lexical-terms.js';
import { LexicalIndex } from '../adapters/bm25/lexical-index.js';
import { embedText } from '../adapters/local/local-embeddings.js';
import { DEFAULT_FEATURES, type FeatureSettings } from '../adapters/local/features.js';
import { extractQueryTerms } from '../src/text/query-terms.js';
import { expandQuery, type FeedbackDocument } from '../src/text/relevance-feedback.js';
import { indexBeirCorpus } from './lib/beir-ragdesk.js';
import { foldedWords, gramCounts } from './lib/char-grams.js';
import { crossValidate } from './lib/cross-validation.js';
import { feedbackCounts } from './lib/feedback-counts.js';
import { flags, printTable, writeResult } from './lib/report.js';
import { readStoredBeirChunks, type StoredBeirChunk } from './lib/stored-chunks.js';
import { StemGramLists } from './lib/stem-gram-lists.js';

const args = flags(process.argv.slice(2));
const FOLDS = Number(args.get('folds') ?? 5);
const SEED = Number(args.get('seed') ?? 1);
/** Each list's depth in the fusion, as `datastore.query` at top 100. */
const DEPTH = 100;

type Chunk = StoredBeirChunk;

/** A ranked list over chunk numbers, best first. */
interface Hits {
  chunks: number[];
  scores: number[];
}

/** The chunks of the corpus as the public API stores them (cached in `--chunks FILE` when given). */
async function chunksOf(dataset: BeirDataset): Promise<Chunk[]> {
  const cache = args.get('chunks');
  if (cache !== undefined && existsSync(cache)) return JSON.parse(readFileSync(cache, 'utf8')) as Chunk[];
  const dir = mkdtempSync(join(tmpdir(), 'ragdesk-bench-scoring-cv-'));
  try {
    const ragdesk = openRagdesk({ dataDir: dir, env: {} });
    const datastore = await ragdesk.datastores.create({ name: 'scoring-cv' });
    const seconds = await indexBeirCorpus(datastore, dataset);
    console.log(`indexed ${dataset.corpus.length} documents in ${seconds.toFixed(1)} s`);
    await ragdesk.close();
    const chunks = readStoredBeirChunks(join(dir, 'ragdesk.db'));
    if (cache !== undefined) writeFileSync(cache, JSON.stringify(chunks));
    return chunks;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Top `depth` of a dense score array (only entries > 0 when `positiveOnly`), ties by chunk number. */
function topOf(scores: Float64Array, depth: number, positiveOnly: boolean, touched?: readonly number[]): Hits {
  const pool = touched ?? Array.from({ length: scores.length }, (_, i) => i);
  const kept = positiveOnly ? pool.filter((i) => scores[i]! > 0) : [...pool];
  kept.sort((a, b) => scores[b]! - scores[a]! || a - b);
  const chunks = kept.slice(0, depth);
  return { chunks, scores: chunks.map((i) => scores[i]!) };
}

// ---------------------------------------------------------------- lexical: exhaustive bm25 variants

interface Bm25Variant {
  name: string;
  k1: number;
  b: number;
  /** 'plus': BM25+ (a matched term adds at least delta * idf); 'l': BM25L (tf normalised, then shifted by delta). */
  kind: 'bm25' | 'plus' | 'l';
  delta: number;
}

class ExhaustiveBm25 {
  private readonly postings = new Map<string, { chunks: Int32Array; tfs: Int32Array }>();
  private readonly lengths: Float64Array;
  private readonly average: number;
  private readonly scores: Float64Array;

  constructor(documents: readonly { counts: ReadonlyMap<string, number>; length: number }[]) {
    const lists = new Map<string, { chunks: number[]; tfs: number[] }>();
    this.lengths = new Float64Array(documents.length);
    let total = 0;
    documents.forEach((document, i) => {
      this.lengths[i] = document.length;
      total += document.length;
      for (const [term, tf] of document.counts) {
        let list = lists.get(term);
        if (list === undefined) lists.set(term, (list = { chunks: [], tfs: [] }));
        list.chunks.push(i);
        list.tfs.push(tf);
      }
    });
    for (const [term, list] of lists) this.postings.set(term, { chunks: Int32Array.from(list.chunks), tfs: Int32Array.from(list.tfs) });
    this.average = total / Math.max(1, documents.length);
    this.scores = new Float64Array(documents.length);
  }

  /** The share of the chunks holding `term`. */
  share(term: string): number {
    return (this.postings.get(term)?.chunks.length ?? 0) / Math.max(1, this.lengths.length);
  }

  /** Lucene's idf, as the store's index. */
  idf(term: string): number {
    const n = this.postings.get(term)?.chunks.length ?? 0;
    const N = this.lengths.length;
    return Math.log(1 + (N - n + 0.5) / (n + 0.5));
  }

  search(terms: readonly string[], weights: readonly number[] | undefined, variant: Bm25Variant, depth: number): Hits {
    const { k1, b, kind, delta } = variant;
    const touched: number[] = [];
    const scores = this.scores;
    terms.forEach((term, t) => {
      const list = this.postings.get(term);
      if (list === undefined) return;
      const weight = (weights?.[t] ?? 1) * this.idf(term);
      for (let p = 0; p < list.chunks.length; p++) {
        const chunk = list.chunks[p]!;
        const tf = list.tfs[p]!;
        const norm = 1 - b + (b * this.lengths[chunk]!) / this.average;
        let part: number;
        if (kind === 'l') {
          const c = tf / norm + delta;
          part = ((k1 + 1) * c) / (k1 + c);
        } else {
          part = (tf * (k1 + 1)) / (tf + k1 * norm);
          if (kind === 'plus') part += delta;
        }
        if (scores[chunk] === 0) touched.push(chunk);
        scores[chunk]! += weight * part;
      }
    });
    const hits = topOf(scores, depth, true, touched);
    for (const chunk of touched) scores[chunk] = 0;
    return hits;
  }
}

/** The Porter stems of a text's words, in order (the words index's terms, repeats kept). */
function stemsOf(text: string): string[] {
  const stems: string[] = [];
  scanWords(text, (word) => stems.push(stem(word)));
  return stems;
}

// ---------------------------------------------------------------- vectors: exact cosine

class ExactVectors {
  /** Dimension-major: a query only reads the rows of its non-zero dimensions. */
  private readonly matrix: Float32Array;
  readonly vectors: Float32Array[];
  private readonly scores: Float64Array;

  constructor(
    texts: readonly string[],
    readonly dimensions: number,
    readonly features: FeatureSettings,
  ) {
    this.vectors = texts.map((text) => embedText(text, dimensions, features).vector);
    const count = texts.length;
    this.matrix = new Float32Array(dimensions * count);
    this.vectors.forEach((vector, column) => {
      for (let row = 0; row < dimensions; row++) this.matrix[row * count + column] = vector[row]!;
    });
    this.scores = new Float64Array(count);
  }

  embed(text: string): Float32Array {
    return embedText(text, this.dimensions, this.features).vector;
  }

  /** The dot product of `query` with every chunk's vector. */
  scoresOf(query: Float32Array): Float32Array {
    const count = this.vectors.length;
    const scores = this.scores;
    scores.fill(0);
    for (let row = 0; row < this.dimensions; row++) {
      const weight = query[row]!;
      if (weight === 0) continue;
      const offset = row * count;
      for (let column = 0; column < count; column++) scores[column]! += weight * this.matrix[offset + column]!;
    }
    return Float32Array.from(scores);
  }

  search(query: Float32Array, depth: number): Hits {
    return topOf(Float64Array.from(this.scoresOf(query)), depth, false);
  }
}

// ---------------------------------------------------------------- fusion

type Scaling = 'minmax' | 'z' | 'max';

interface FusedList {
  hits: Hits;
  weight: number;
}

/**
 * Each list scaled by `scaling` over its own hits, an id missing from a list taking the list's
 * lowest scaled value (0 under min-max, as the library fuses), then a weighted sum.
 */
function fuse(lists: readonly FusedList[], scaling: Scaling, scratch: Float64Array): Hits {
  const touched: number[] = [];
  const seen = new Set<number>();
  let floor = 0;
  const scaled: { chunks: number[]; values: number[]; weight: number; low: number }[] = [];
  for (const { hits, weight } of lists) {
    if (hits.chunks.length === 0 || weight === 0) continue;
    const { scores } = hits;
    let min = Infinity;
    let max = -Infinity;
    let sum = 0;
    for (const score of scores) {
      min = Math.min(min, score);
      max = Math.max(max, score);
      sum += score;
    }
    const mean = sum / scores.length;
    let variance = 0;
    for (const score of scores) variance += (score - mean) ** 2;
    const deviation = Math.sqrt(variance / scores.length);
    const scale = (score: number): number => {
      if (scaling === 'minmax') return max > min ? (score - min) / (max - min) : 1;
      if (scaling === 'max') return max > 0 ? score / max : 1;
      return deviation > 0 ? (score - mean) / deviation : 0;
    };
    const values = scores.map(scale);
    const low = Math.min(...values);
    scaled.push({ chunks: hits.chunks, values, weight, low });
    floor += weight * low;
    for (const chunk of hits.chunks) {
      if (!seen.has(chunk)) {
        seen.add(chunk);
        touched.push(chunk);
      }
    }
  }
  for (const chunk of touched) scratch[chunk] = floor;
  for (const { chunks, values, weight, low } of scaled) {
    chunks.forEach((chunk, i) => (scratch[chunk]! += weight * (values[i]! - low)));
  }
  const hits = topOf(scratch, Infinity, false, touched);
  for (const chunk of touched) scratch[chunk] = 0;
  return hits;
}

/** Documents in order of their best chunk. */
function documentsOf(hits: Hits, docOf: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const chunk of hits.chunks) seen.add(docOf[chunk]!);
  return [...seen];
}

function ndcgAndRecall(ranking: readonly string[], relevant: ReadonlyMap<string, number>): [number, number] {
  const grades = [...relevant.values()].filter((grade) => grade > 0);
  let dcg = 0;
  ranking.slice(0, 10).forEach((doc, index) => (dcg += (relevant.get(doc) ?? 0) / Math.log2(index + 2)));
  const idcg = [...grades]
    .sort((a, b) => b - a)
    .slice(0, 10)
    .reduce((sum, grade, index) => sum + grade / Math.log2(index + 2), 0);
  const found = ranking.slice(0, 100).filter((doc) => (relevant.get(doc) ?? 0) > 0).length;
  return [idcg === 0 ? 0 : dcg / idcg, grades.length === 0 ? 0 : found / grades.length];
}

// ---------------------------------------------------------------- candidates

interface EmbedderVariant {
  name: string;
  dimensions: number;
  features: FeatureSettings;
}

const EMBEDDERS: EmbedderVariant[] = [
  { name: 'v1', dimensions: 1024, features: DEFAULT_FEATURES },
  { name: 'grams 3-5', dimensions: 1024, features: { ...DEFAULT_FEATURES, charGramMin: 3, charGramMax: 5 } },
  { name: 'grams of stems', dimensions: 1024, features: { ...DEFAULT_FEATURES, charGramsOfStem: true } },
  { name: 'bigrams 0.15', dimensions: 1024, features: { ...DEFAULT_FEATURES, bigram: 0.15 } },
  { name: 'stems 0.5, grams of stems', dimensions: 1024, features: { ...DEFAULT_FEATURES, unigram: 0.5, charGramsOfStem: true } },
  { name: 'v1 2048', dimensions: 2048, features: DEFAULT_FEATURES },
];

const LEXICAL: Bm25Variant[] = [
  { name: 'bm25', k1: 1.2, b: 0.75, kind: 'bm25', delta: 0 },
  { name: 'bm25 k1 0.9 b 0.4', k1: 0.9, b: 0.4, kind: 'bm25', delta: 0 },
  { name: 'bm25+ d 0.5', k1: 1.2, b: 0.75, kind: 'plus', delta: 0.5 },
  { name: 'bm25+ d 1', k1: 1.2, b: 0.75, kind: 'plus', delta: 1 },
  { name: 'bm25l d 0.5', k1: 1.2, b: 0.75, kind: 'l', delta: 0.5 },
];

/**
 * The n-gram channel: none, or bm25 over character n of words at a weight beside bm25's 1; with
 * `maxShare`, the query keeps only the n-grams found in at most that share of the chunks (cheaper:
 * the long lists are the cost).
 */
const NGRAMS: { n: number; weight: number; maxShare: number }[] = [
  { n: 0, weight: 0, maxShare: 1 },
  { n: 4, weight: 0.2, maxShare: 1 },
  { n: 4, weight: 0.4, maxShare: 1 },
  { n: 5, weight: 0.2, maxShare: 1 },
  { n: 5, weight: 0.4, maxShare: 1 },
  { n: 4, weight: 0.2, maxShare: 0.05 },
  { n: 4, weight: 0.4, maxShare: 0.05 },
];
const PRUNED_SHARE = 0.05;
const SCALINGS: Scaling[] = ['minmax', 'z', 'max'];
const VECTOR_WEIGHTS = [0.2, 0.3, 0.4, 0.5];
/** Rocchio on the query vector from the fused top k: q' = q + beta * mean(top k). */
const VECTOR_FEEDBACK: { k: number; beta: number }[] = [
  { k: 3, beta: 0.5 },
  { k: 3, beta: 1 },
  { k: 5, beta: 0.5 },
  { k: 5, beta: 1 },
  { k: 5, beta: 2 },
  { k: 10, beta: 1 },
  { k: 10, beta: 2 },
];
/** RM3 with its feedback chunks taken from the fused top. */
const LEXICAL_FEEDBACK: { documents: number; terms: number; originalWeight: number }[] = [
  { documents: 3, terms: 10, originalWeight: 0.85 },
  { documents: 3, terms: 20, originalWeight: 0.7 },
  { documents: 5, terms: 10, originalWeight: 0.85 },
  { documents: 5, terms: 20, originalWeight: 0.7 },
];

/**
 * What an n-gram channel would cost in the store's own index class: the words index and an index of
 * character n-grams over the same chunks, their sizes, and the search time of every query at the
 * depth a top-10 hybrid query asks each half for (50), three rounds, median per query.
 */
function channelCost(chunks: readonly Chunk[], queries: BeirDataset['queries'], n: number): Record<string, number> {
  const words = new LexicalIndex();
  const grams = new LexicalIndex();
  chunks.forEach((chunk) => {
    const indexed = { id: chunk.id, datasourceId: chunk.doc, customId: null };
    words.addText(indexed, chunk.text);
    grams.add(indexed, gramCounts(foldedWords(chunk.text), n));
  });
  const time = (search: (q: number) => unknown): number => {
    const samples = queries.map(() => [] as number[]);
    for (let round = 0; round < 3; round++) {
      queries.forEach((_, q) => {
        const started = performance.now();
        search(q);
        samples[q]!.push(performance.now() - started);
      });
    }
    const medians = samples.map((list) => list.sort((a, b) => a - b)[1]!).sort((a, b) => a - b);
    return medians[Math.floor(medians.length / 2)]!;
  };
  const stemQueries = queries.map((query) => queryStems(query.text, 64));
  const gramQueries = queries.map((query) => gramCounts(extractQueryTerms(query.text, { maxTerms: 64 }).flatMap(foldedWords), n).counts);
  const df = new Map<string, number>();
  for (const chunk of chunks)
    for (const gram of gramCounts(foldedWords(chunk.text), n).counts.keys()) df.set(gram, (df.get(gram) ?? 0) + 1);
  const pruned = gramQueries.map((counts) => [...counts].filter(([gram]) => (df.get(gram) ?? 0) <= PRUNED_SHARE * chunks.length));
  const stemGrams = new StemGramLists(chunks.map((chunk) => stemsOf(chunk.text)));
  const wordsStats = words.stats();
  const gramStats = grams.stats();
  return {
    'words postings': wordsStats.postings,
    'words MB': wordsStats.bytes / 2 ** 20,
    [`${n}-gram postings`]: gramStats.postings,
    [`${n}-gram MB`]: gramStats.bytes / 2 ** 20,
    'words search p50 ms': time((q) => words.search(stemQueries[q]!, 50)),
    [`${n}-gram search p50 ms`]: time((q) => grams.search([...gramQueries[q]!.keys()], 50, undefined, [...gramQueries[q]!.values()])),
    [`${n}-grams in <= ${PRUNED_SHARE * 100}% p50 ms`]: time((q) =>
      grams.search(
        pruned[q]!.map(([gram]) => gram),
        50,
        undefined,
        pruned[q]!.map(([, count]) => count),
      ),
    ),
    [`${n}-grams of stems in <= ${PRUNED_SHARE * 100}%, from stem postings p50 ms`]: time((q) =>
      stemGrams.search(stemQueries[q]!, 50, PRUNED_SHARE),
    ),
  };
}

async function main(): Promise<void> {
  const folder = args.get('dataset');
  if (!folder) throw new Error('usage: npm run bench:scoring-cv -- --dataset <BEIR folder> [--split train] [--folds 5] [--chunks FILE]');
  const split = args.get('split') ?? 'train';
  const dataset = loadBeir(folder, split);
  const chunks = await chunksOf(dataset);
  console.log(`${chunks.length} chunks, ${dataset.queries.length} queries`);
  const cost = channelCost(chunks, dataset.queries, 4);
  printTable('Cost of a 4-gram channel beside the words index (same run)', [cost]);
  if (args.has('cost-only')) return;
  const docOf = chunks.map((chunk) => chunk.doc);
  const texts = chunks.map((chunk) => chunk.text);
  const queries = dataset.queries;
  const scratch = new Float64Array(chunks.length);

  const names: string[] = [];
  const ndcg: Float64Array[] = [];
  const recall: Float64Array[] = [];
  const record = (name: string, ranked: (q: number) => Hits) => {
    names.push(name);
    const n = new Float64Array(queries.length);
    const r = new Float64Array(queries.length);
    queries.forEach((query, q) => {
      const [a, b] = ndcgAndRecall(documentsOf(ranked(q), docOf).slice(0, DEPTH), dataset.qrels.get(query.id) ?? new Map());
      n[q] = a;
      r[q] = b;
    });
    ndcg.push(n);
    recall.push(r);
  };
  const started = performance.now();

  // Lexical lists per variant, and the n-gram lists.
  const stems = new ExhaustiveBm25(texts.map((text) => analyseText(text)));
  const queryTerms = queries.map((query) => queryStems(query.text, 64));
  const lexical = LEXICAL.map((variant) => queryTerms.map((terms) => stems.search(terms, undefined, variant, DEPTH)));
  const words = texts.map(foldedWords);
  const queryWords = queries.map((query) => extractQueryTerms(query.text, { maxTerms: 64 }).flatMap(foldedWords));
  const ngramLists = new Map<string, Hits[]>();
  /** Every chunk holding one of the query's n-grams, best first. */
  const ngramAll = new Map<number, Hits[]>();
  for (const n of new Set(NGRAMS.map((g) => g.n).filter((n) => n > 0))) {
    const index = new ExhaustiveBm25(words.map((list) => gramCounts(list, n)));
    const variant = LEXICAL[0]!;
    const all = queryWords.map((list) => {
      const { counts } = gramCounts(list, n);
      return index.search([...counts.keys()], [...counts.values()], variant, Infinity);
    });
    ngramAll.set(n, all);
    ngramLists.set(
      `${n}/1`,
      all.map((hits) => ({ chunks: hits.chunks.slice(0, DEPTH), scores: hits.scores.slice(0, DEPTH) })),
    );
    for (const maxShare of new Set(NGRAMS.filter((g) => g.n === n && g.maxShare < 1).map((g) => g.maxShare))) {
      ngramLists.set(
        `${n}/${maxShare}`,
        queryWords.map((list) => {
          const kept = [...gramCounts(list, n).counts].filter(([gram]) => index.share(gram) <= maxShare);
          return index.search(
            kept.map(([gram]) => gram),
            kept.map(([, count]) => count),
            variant,
            DEPTH,
          );
        }),
      );
    }
  }
  // The same list over the 4-grams of the Porter stems the words index stores: a form that could be
  // answered from the words index's own postings and vocabulary (a gram -> stems map), with no
  // postings of its own.
  const stemGrams = new ExhaustiveBm25(texts.map((text) => gramCounts(stemsOf(text), 4)));
  const stemGramLists = queryTerms.map((terms) => {
    const kept = [...gramCounts(terms, 4).counts].filter(([gram]) => stemGrams.share(gram) <= PRUNED_SHARE);
    return stemGrams.search(
      kept.map(([gram]) => gram),
      kept.map(([, count]) => count),
      LEXICAL[0]!,
      DEPTH,
    );
  });
  const derived = new StemGramLists(texts.map(stemsOf));
  const same = queryTerms.filter((terms, q) => {
    const found = derived.search(terms, DEPTH, PRUNED_SHARE);
    const expected = stemGramLists[q]!;
    return found.chunks.join() === expected.chunks.join() && found.scores.join() === expected.scores.join();
  }).length;
  console.log(`4-grams of stems from stem postings: ${same} of ${queries.length} lists equal to exhaustive scoring`);
  console.log(`lexical lists in ${((performance.now() - started) / 1000).toFixed(0)} s`);

  const none: Hits = { chunks: [], scores: [] };
  for (const embedder of EMBEDDERS) {
    const vectors = new ExactVectors(texts, embedder.dimensions, embedder.features);
    const queryVectors = queries.map((query) => vectors.embed(query.text));
    const vectorLists = queryVectors.map((vector) => vectors.search(vector, DEPTH));
    // Every combination of lexical variant, n-gram channel, scaling and weight for the shipped
    // embedder; the other embedders beside plain bm25 only (the grid is too slow otherwise).
    const shippedEmbedder = embedder.name === 'v1';
    LEXICAL.forEach((variant, l) => {
      if (!shippedEmbedder && l > 0) return;
      for (const gram of NGRAMS) {
        if (!shippedEmbedder && gram.n > 0) continue;
        for (const scaling of SCALINGS) {
          for (const weight of VECTOR_WEIGHTS) {
            const grams = gram.n
              ? `${gram.n}-grams ${gram.weight}${gram.maxShare < 1 ? ` in <= ${gram.maxShare * 100}% of chunks` : ''}`
              : 'no grams';
            const name = `${embedder.name} | ${variant.name} | ${grams} | ${scaling} | vector ${weight}`;
            record(name, (q) =>
              fuse(
                [
                  { hits: vectorLists[q]!, weight },
                  { hits: lexical[l]![q]!, weight: 1 },
                  { hits: gram.n ? ngramLists.get(`${gram.n}/${gram.maxShare}`)![q]! : none, weight: gram.weight },
                ],
                scaling,
                scratch,
              ),
            );
          }
        }
      }
    });
    // The 4-gram channel scoring only the pool the two halves bring (no hits of its own): what a
    // cheaper channel would do, reading the n-grams of at most 2 x depth chunks per query.
    if (shippedEmbedder) {
      const pooled = queries.map((_, q) => {
        const pool = new Set([...vectorLists[q]!.chunks, ...lexical[0]![q]!.chunks]);
        const all = ngramAll.get(4)![q]!;
        const hits: Hits = { chunks: [], scores: [] };
        all.chunks.forEach((chunk, i) => {
          if (!pool.has(chunk)) return;
          hits.chunks.push(chunk);
          hits.scores.push(all.scores[i]!);
        });
        return hits;
      });
      for (const gramWeight of [0.2, 0.4]) {
        for (const scaling of SCALINGS) {
          for (const weight of VECTOR_WEIGHTS) {
            record(`v1 | bm25 | 4-grams ${gramWeight} on the pool | ${scaling} | vector ${weight}`, (q) =>
              fuse(
                [
                  { hits: vectorLists[q]!, weight },
                  { hits: lexical[0]![q]!, weight: 1 },
                  { hits: pooled[q]!, weight: gramWeight },
                ],
                scaling,
                scratch,
              ),
            );
          }
        }
      }
    }
    if (shippedEmbedder) {
      for (const gramWeight of [0.2, 0.4]) {
        record(`v1 | bm25 | 4-grams of stems ${gramWeight} in <= 5% of chunks | minmax | vector 0.3`, (q) =>
          fuse(
            [
              { hits: vectorLists[q]!, weight: 0.3 },
              { hits: lexical[0]![q]!, weight: 1 },
              { hits: stemGramLists[q]!, weight: gramWeight },
            ],
            'minmax',
            scratch,
          ),
        );
      }
    }
    // Feedback on top of bm25 without n-grams, for every scaling and weight.
    const analysed = new Map<number, Map<string, number>>();
    const queryScores = queryVectors.map((vector) => vectors.scoresOf(vector));
    const chunkScores = new Map<number, Float32Array>();
    for (const scaling of SCALINGS) {
      if (!shippedEmbedder && scaling !== 'minmax') continue;
      for (const weight of VECTOR_WEIGHTS) {
        const first = queries.map((_, q) =>
          fuse(
            [
              { hits: vectorLists[q]!, weight },
              { hits: lexical[0]![q]!, weight: 1 },
            ],
            scaling,
            scratch,
          ),
        );
        const prefix = `${embedder.name} | bm25 | no grams | ${scaling} | vector ${weight}`;
        for (const { k, beta } of VECTOR_FEEDBACK) {
          // Cosine ranks alike whatever the length of q + beta * mean(top k), so its scores are
          // the query's plus beta / k times each feedback chunk's, all computed once.
          const second = queries.map((_, q) => {
            const top = first[q]!.chunks.slice(0, k);
            const combined = Float64Array.from(queryScores[q]!);
            for (const chunk of top) {
              let scores = chunkScores.get(chunk);
              if (scores === undefined) chunkScores.set(chunk, (scores = vectors.scoresOf(vectors.vectors[chunk]!)));
              for (let i = 0; i < combined.length; i++) combined[i]! += (beta / top.length) * scores[i]!;
            }
            return topOf(combined, DEPTH, false);
          });
          record(`${prefix} | vector feedback k ${k} beta ${beta}`, (q) =>
            fuse(
              [
                { hits: second[q]!, weight },
                { hits: lexical[0]![q]!, weight: 1 },
              ],
              scaling,
              scratch,
            ),
          );
        }
        if (!shippedEmbedder) continue;
        for (const feedback of LEXICAL_FEEDBACK) {
          record(`${prefix} | rm3 from fused d ${feedback.documents} t ${feedback.terms} w ${feedback.originalWeight}`, (q) => {
            const documents: FeedbackDocument[] = first[q]!.chunks.slice(0, feedback.documents).map((chunk, i) => {
              let counts = analysed.get(chunk);
              if (counts === undefined) analysed.set(chunk, (counts = feedbackCounts(texts[chunk]!)));
              return { counts, score: first[q]!.scores[i]! - (first[q]!.scores.at(-1) ?? 0) + 1e-9 };
            });
            const expanded = expandQuery(queryTerms[q]!, documents, feedback);
            const hits = stems.search(expanded.words, expanded.weights, LEXICAL[0]!, DEPTH);
            return fuse(
              [
                { hits: vectorLists[q]!, weight },
                { hits, weight: 1 },
              ],
              scaling,
              scratch,
            );
          });
        }
      }
    }
    console.log(`${embedder.name}: ${names.length} candidates after ${((performance.now() - started) / 1000).toFixed(0)} s`);
    if (shippedEmbedder) report(folder, split, names, ndcg, recall, queries, false);
  }

  report(folder, split, names, ndcg, recall, queries, true, cost);
}

function report(
  folder: string,
  split: string,
  names: readonly string[],
  ndcg: readonly Float64Array[],
  recall: readonly Float64Array[],
  queries: BeirDataset['queries'],
  final: boolean,
  cost?: Record<string, number>,
): void {
  const queryIds = queries.map((query) => query.id);
  const shipped = names.indexOf('v1 | bm25 | no grams | minmax | vector 0.3');
  const {
    split: split5,
    mean,
    foldRows,
    candidateRows,
    weighted,
  } = crossValidate({
    names,
    ndcg,
    recall,
    queryIds,
    folds: FOLDS,
    seed: SEED,
    shipped,
  });
  printTable(`${FOLDS}-fold cross-validation on ${basename(folder)} ${split} (${queryIds.length} queries)`, foldRows);
  console.log(
    `held-out over all folds: nDCG@10 ${weighted('held-out nDCG@10').toFixed(4)}, Recall@100 ${weighted('held-out R@100').toFixed(4)}; default ${weighted('default nDCG@10').toFixed(4)}`,
  );
  printTable('Candidates, all queries (top 40)', candidateRows.slice(0, 40));
  // Per idea, the best candidate that differs from the default in that idea alone.
  const families: [string, RegExp][] = [
    ['default', /^v1 \| bm25 \| no grams \| minmax \| vector 0\.3$/],
    ['vector weight', /^v1 \| bm25 \| no grams \| minmax \| vector [\d.]+$/],
    ['embedder', /^.+ \| bm25 \| no grams \| minmax \| vector 0\.3$/],
    ['bm25 variant', /^v1 \| .+ \| no grams \| minmax \| vector 0\.3$/],
    ['n-gram channel', /^v1 \| bm25 \| (no grams|\d-grams [\d.]+) \| minmax \| vector 0\.3$/],
    ['n-gram channel, any scaling and weight', /^v1 \| bm25 \| \d-grams [\d.]+ \| \w+ \| vector [\d.]+$/],
    ['4-grams in <= 5% of chunks', /^v1 \| bm25 \| (no grams|4-grams [\d.]+ in <= 5% of chunks) \| minmax \| vector 0\.3$/],
    ['4-gram channel on the pool', /^v1 \| bm25 \| 4-grams [\d.]+ on the pool \| \w+ \| vector [\d.]+$/],
    [
      '4-grams of stems in <= 5% of chunks',
      /^v1 \| bm25 \| (no grams|4-grams of stems [\d.]+ in <= 5% of chunks) \| minmax \| vector 0\.3$/,
    ],
    ['scaling', /^v1 \| bm25 \| no grams \| \w+ \| vector [\d.]+$/],
    ['vector feedback', /^v1 \| bm25 \| no grams \| minmax \| vector [\d.]+ \| vector feedback/],
    ['rm3 from fused', /^v1 \| bm25 \| no grams \| minmax \| vector [\d.]+ \| rm3/],
  ];
  const familyRows = families.map(([family, pattern]) => {
    const members = names.map((name, c) => ({ name, c })).filter(({ name }) => pattern.test(name));
    const folded = split5.map((held, f) => {
      const training = split5.filter((_, g) => g !== f).flat();
      const best = members.reduce((a, b) => (mean(ndcg, b.c, training) > mean(ndcg, a.c, training) ? b : a));
      return { score: mean(ndcg, best.c, held), chosen: best.name, gain: mean(ndcg, best.c, held) - mean(ndcg, shipped, held) };
    });
    const heldOut = folded.reduce((sum, { score }, f) => sum + score * split5[f]!.length, 0) / queryIds.length;
    return {
      idea: family,
      candidates: members.length,
      'CV held-out nDCG@10': heldOut.toFixed(4),
      'per fold': folded.map(({ score }) => score.toFixed(3)).join(' '),
      'gain per fold': folded.map(({ gain }) => gain.toFixed(3)).join(' '),
      chosen: [...new Set(folded.map(({ chosen }) => chosen))].join('; '),
    };
  });
  printTable('Per idea (chosen within the idea on 4 folds, scored on the 5th)', familyRows);
  if (!final) return;
  writeResult(`scoring-cv-${basename(folder)}-${split}`, {
    dataset: basename(folder),
    split,
    folds: FOLDS,
    seed: SEED,
    queries: queryIds.length,
    candidateCount: names.length,
    foldRows,
    heldOut: { ndcg10: weighted('held-out nDCG@10'), recall100: weighted('held-out R@100'), default: weighted('default nDCG@10') },
    families: familyRows,
    ngramChannelCost: cost,
    candidates: candidateRows.slice(0, 100),
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
