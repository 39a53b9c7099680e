/**
 * Retrieval quality of the local embedder on a BEIR dataset (default: SciFact train split from
 * datasets/scifact in the data sets folder, RAGDESK_DATASETS_DIR): exact cosine search over the whole corpus, vector only, per variant of
 * dimensions and feature set; plus an in-memory BM25 and the reciprocal-rank fusion (k = 60) of the two,
 * which is what hybrid retrieval serves.
 *
 *   npx tsc -p tsconfig.build.json && node dist/benchmarks/embedder-quality.js [--data DIR] [--split train] [--quick]
 */
import { existsSync } from 'node:fs';
import { embedText } from '../adapters/local/local-embeddings.js';
import { DEFAULT_FEATURES, type FeatureSettings } from '../adapters/local/features.js';
import { loadBeir } from '../adapters/cli/beir.js';
import { reciprocalRankFusion, RRF_K } from '../src/datastores/fusion.js';
import { evaluate, topByScore, type BeirDataset, type Ranking, type Scores } from './beir.js';
import { Bm25Index } from './bm25.js';
import { datasetLabel, datasetPath } from '../fixtures/datasets.js';
import { flags, printTable, writeResult, type Row } from './lib/report.js';

interface Variant {
  name: string;
  dimensions: number;
  features: FeatureSettings;
}

/** Each list contributes its top 100 to the fusion, as a datastore query would fetch. */
const FUSION_DEPTH = 100;
/** Also reported: fusion with the vector list at half weight, since the lexical list is the stronger. */
const HALF = 0.5;

function variants(quick: boolean): Variant[] {
  const base = DEFAULT_FEATURES;
  const at = (dimensions: number): Variant => ({ name: 'default', dimensions, features: base });
  const list: Variant[] = [at(384), at(512), at(768), at(1024), at(2048)];
  if (quick) return list.filter((variant) => variant.dimensions === 1024);
  const feature = (name: string, changes: Partial<FeatureSettings>): Variant => ({
    name,
    dimensions: 1024,
    features: { ...base, ...changes },
  });
  return [
    ...list,
    feature('stems only, no prior', { unigram: 1, charGram: 0, englishPrior: false }),
    feature('stems only', { unigram: 1, charGram: 0 }),
    feature('char 4-grams only', { unigram: 0 }),
    feature('default, no prior', { englishPrior: false }),
    feature('default + bigrams 0.25', { bigram: 0.25 }),
    feature('char 3-5-grams', { charGramMin: 3, charGramMax: 5 }),
    feature('stems 0.5 + char 4-grams', { unigram: 0.5 }),
  ];
}

/** Embeds the corpus into a dimension-major matrix so a query only touches its non-zero dimensions. */
function vectorRankings(data: BeirDataset, variant: Variant): { rankings: Map<string, Ranking>; docsPerSecond: number } {
  const { dimensions, features } = variant;
  const count = data.corpus.length;
  const ids = data.corpus.map((document) => document.id);
  const matrix = new Float32Array(dimensions * count);
  const started = performance.now();
  data.corpus.forEach((document, column) => {
    const { vector } = embedText(`${document.title} ${document.text}`, dimensions, features);
    for (let row = 0; row < dimensions; row++) matrix[row * count + column] = vector[row]!;
  });
  const docsPerSecond = count / ((performance.now() - started) / 1000);
  const rankings = new Map<string, Ranking>();
  for (const query of data.queries) {
    const { vector } = embedText(query.text, dimensions, features);
    const scores = new Float64Array(count);
    for (let row = 0; row < dimensions; row++) {
      const weight = vector[row]!;
      if (weight === 0) continue;
      const offset = row * count;
      for (let column = 0; column < count; column++) scores[column]! += weight * matrix[offset + column]!;
    }
    rankings.set(query.id, topByScore(scores, ids, 1000));
  }
  return { rankings, docsPerSecond };
}

/** The top of a ranking as the fusion's input: only the rank counts, so every score is 0. */
function topHits(ranking: Ranking = []): { id: string; score: number }[] {
  return ranking.slice(0, FUSION_DEPTH).map((id) => ({ id, score: 0 }));
}

function fuse(
  data: BeirDataset,
  lexical: ReadonlyMap<string, Ranking>,
  vector: ReadonlyMap<string, Ranking>,
  vectorWeight = 1,
): Map<string, Ranking> {
  return new Map(
    data.queries.map((query) => [
      query.id,
      reciprocalRankFusion([topHits(lexical.get(query.id)), topHits(vector.get(query.id))], { k: RRF_K, weights: [1, vectorWeight] }).map(
        (hit) => hit.id,
      ),
    ]),
  );
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

function main(): void {
  const args = flags(process.argv.slice(2));
  const folder = args.get('data') ?? datasetPath('datasets', 'scifact');
  const split = args.get('split') ?? 'train';
  if (!existsSync(folder)) {
    console.log(`skipped: no BEIR dataset at ${folder} (pass --data DIR)`);
    return;
  }
  const data = loadBeir(folder, split);
  console.log(`${folder} (${split}): ${data.corpus.length} documents, ${data.queries.length} judged queries`);
  const ids = data.corpus.map((document) => document.id);
  const bm25 = new Bm25Index(data.corpus.map((document) => `${document.title} ${document.text}`));
  const lexical = new Map(data.queries.map((query) => [query.id, topByScore(bm25.score(query.text), ids, 1000, true)]));
  const lexicalScores = evaluate(lexical, data.qrels);
  const rows: Row[] = [
    {
      variant: 'BM25 (in-memory, FTS5-like)',
      dimensions: '-',
      'nDCG@10': lexicalScores.ndcg10,
      'R@100': lexicalScores.recall100,
      'MRR@10': lexicalScores.mrr10,
      'RRF nDCG@10': '-',
      'RRF R@100': '-',
      'RRF½ nDCG@10': '-',
      'docs/s': '-',
    },
  ];
  const results: Array<{
    variant: string;
    dimensions: number;
    features: FeatureSettings;
    vector: Scores;
    fused: Scores;
    fusedHalfWeight: Scores;
    docsPerSecond: number;
  }> = [];
  for (const variant of variants(args.has('quick'))) {
    const { rankings, docsPerSecond } = vectorRankings(data, variant);
    const vector = evaluate(rankings, data.qrels);
    const fused = evaluate(fuse(data, lexical, rankings), data.qrels);
    const fusedHalfWeight = evaluate(fuse(data, lexical, rankings, HALF), data.qrels);
    results.push({
      variant: variant.name,
      dimensions: variant.dimensions,
      features: variant.features,
      vector,
      fused,
      fusedHalfWeight,
      docsPerSecond: Math.round(docsPerSecond),
    });
    rows.push({
      variant: variant.name,
      dimensions: variant.dimensions,
      'nDCG@10': vector.ndcg10,
      'R@100': vector.recall100,
      'MRR@10': vector.mrr10,
      'RRF nDCG@10': fused.ndcg10,
      'RRF R@100': fused.recall100,
      'RRF½ nDCG@10': fusedHalfWeight.ndcg10,
      'docs/s': Math.round(docsPerSecond),
    });
    console.log(
      `${variant.name} ${variant.dimensions}: nDCG@10 ${vector.ndcg10.toFixed(4)}, RRF ${fused.ndcg10.toFixed(4)}, RRF½ ${fusedHalfWeight.ndcg10.toFixed(4)}`,
    );
  }
  printTable(
    `Local embedder on ${split} split: exact cosine search, and RRF(k=${RRF_K}) with BM25 (RRF½: vector list at weight ${HALF})`,
    rows,
  );
  writeResult('embedder-quality', {
    dataset: datasetLabel(folder),
    split,
    documents: data.corpus.length,
    queries: data.queries.length,
    rrf: { k: RRF_K, depth: FUSION_DEPTH },
    bm25: { k1: 1.2, b: 0.75, ...mapScores(lexicalScores) },
    variants: results.map((result) => ({
      ...result,
      vector: mapScores(result.vector),
      fused: mapScores(result.fused),
      fusedHalfWeight: mapScores(result.fusedHalfWeight),
    })),
  });
}

function mapScores(scores: Scores): Scores {
  return { ndcg10: round(scores.ndcg10), recall100: round(scores.recall100), mrr10: round(scores.mrr10) };
}

main();
