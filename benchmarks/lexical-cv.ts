/**
 * bench:lexical-cv — which lexical and fusion settings generalise, by cross-validation on a BEIR split.
 *
 *   npm run bench:lexical-cv -- --dataset "$RAGDESK_DATASETS_DIR/datasets/scifact" [--split train] [--folds 5]
 *
 * Indexes the corpus once through the public API (embedded default, offline embedder) and takes each
 * query's vector top 100 from it. The lexical side is then recomputed offline on the same chunk rows
 * (read from the datastore's SQLite file) with the store's own bm25 index class and analyser, for
 * each candidate: bm25 k1 and b, RM3 pseudo-relevance feedback (feedback documents, words, weight
 * of the original query), then fused with the vector list as the public API fuses (min-max score
 * fusion, each list's top 100) at several vector weights, chunks folded into documents by their best
 * chunk or by the sum of their chunks. Per fold, the candidate with the best mean nDCG@10 on the
 * other folds is scored on the held-out fold. The first row of the table is the shipped default.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { openRagdesk } from '../adapters/node.js';
import { loadBeir, scoreRankings, type BeirDataset } from '../adapters/cli/beir.js';
import { LexicalIndex } from '../adapters/bm25/lexical-index.js';
import { queryStems } from '../adapters/bm25/lexical-terms.js';
import { expandQuery, type FeedbackDocument } from '../src/text/relevance-feedback.js';
import { fuseByScore } from '../src/datastores/score-fusion.js';
import type { ScoredId } from '../src/ports/records.js';
import { indexBeirCorpus } from './lib/beir-ragdesk.js';
import { crossValidate } from './lib/cross-validation.js';
import { feedbackCounts } from './lib/feedback-counts.js';
import { flags, printTable, writeResult } from './lib/report.js';
import { readStoredBeirChunks, type StoredBeirChunk } from './lib/stored-chunks.js';

const args = flags(process.argv.slice(2));
const FOLDS = Number(args.get('folds') ?? 5);
const SEED = Number(args.get('seed') ?? 1);
const DEPTH = 100;

type Chunk = StoredBeirChunk;

interface Collected {
  chunks: Chunk[];
  vector: Map<string, ScoredId[]>;
}

async function collect(dataset: BeirDataset): Promise<Collected> {
  const dir = mkdtempSync(join(tmpdir(), 'ragdesk-bench-lexical-cv-'));
  try {
    const ragdesk = openRagdesk({ dataDir: dir, env: {} });
    const datastore = await ragdesk.datastores.create({ name: 'lexical-cv' });
    const seconds = await indexBeirCorpus(datastore, dataset);
    console.log(`indexed ${dataset.corpus.length} documents in ${seconds.toFixed(1)} s`);
    const vector = new Map<string, ScoredId[]>();
    for (const query of dataset.queries) {
      const fragments = await datastore.query({ query: query.text, topK: DEPTH, mode: 'vector' });
      vector.set(
        query.id,
        fragments.map((fragment) => ({ id: fragment.chunk_id, score: fragment.vector_score ?? fragment.score })),
      );
    }
    await ragdesk.close();
    const chunks = readStoredBeirChunks(join(dir, 'ragdesk.db'));
    return { chunks, vector };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Feedback {
  documents: number;
  terms: number;
  originalWeight: number;
}

interface LexicalVariant {
  name: string;
  k1: number;
  b: number;
  feedback: Feedback | null;
}

function lexicalVariants(): LexicalVariant[] {
  const list: LexicalVariant[] = [];
  for (const [k1, b] of [
    [1.2, 0.75],
    [0.9, 0.4],
    [0.9, 0.75],
    [1.2, 0.5],
    [1.2, 0.9],
    [1.5, 0.75],
    [1.5, 0.9],
    [2.0, 0.75],
  ] as const) {
    list.push({ name: `bm25 k1=${k1} b=${b}`, k1, b, feedback: null });
    for (const documents of [3, 5, 10]) {
      for (const terms of [10, 20, 40]) {
        for (const originalWeight of [0.5, 0.7, 0.85]) {
          list.push({
            name: `bm25 k1=${k1} b=${b} rm3 d=${documents} t=${terms} w=${originalWeight}`,
            k1,
            b,
            feedback: { documents, terms, originalWeight },
          });
        }
      }
    }
  }
  return list;
}

const indexes = new Map<string, LexicalIndex>();

function indexFor(data: Collected, k1: number, b: number): LexicalIndex {
  let index = indexes.get(`${k1}/${b}`);
  if (index === undefined) {
    index = new LexicalIndex({ k1, b });
    for (const chunk of data.chunks) index.addText({ id: chunk.id, datasourceId: chunk.doc, customId: null }, chunk.text);
    indexes.set(`${k1}/${b}`, index);
  }
  return index;
}

function lexicalRuns(data: Collected, dataset: BeirDataset, variant: LexicalVariant, analysed: Map<string, Map<string, number>>) {
  const index = indexFor(data, variant.k1, variant.b);
  const textOf = new Map(data.chunks.map((chunk) => [chunk.id, chunk.text]));
  const result = new Map<string, ScoredId[]>();
  for (const query of dataset.queries) {
    const words = queryStems(query.text, 64);
    let hits = index.search(words, DEPTH);
    if (variant.feedback !== null) {
      const documents: FeedbackDocument[] = hits.slice(0, variant.feedback.documents).map((hit) => {
        let counts = analysed.get(hit.id);
        if (counts === undefined) analysed.set(hit.id, (counts = feedbackCounts(textOf.get(hit.id) as string)));
        return { counts, score: hit.score };
      });
      const expanded = expandQuery(words, documents, variant.feedback);
      hits = index.search(expanded.words, DEPTH, undefined, expanded.weights);
    }
    result.set(query.id, hits);
  }
  return result;
}

type Aggregate = 'best' | 'sum';

function documentsOf(hits: readonly ScoredId[], docOf: ReadonlyMap<string, string>, aggregate: Aggregate): string[] {
  if (aggregate === 'best') {
    const seen = new Set<string>();
    for (const hit of hits) seen.add(docOf.get(hit.id) as string);
    return [...seen];
  }
  const sums = new Map<string, number>();
  for (const hit of hits) {
    const doc = docOf.get(hit.id) as string;
    sums.set(doc, (sums.get(doc) ?? 0) + hit.score);
  }
  return [...sums].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([doc]) => doc);
}

async function main(): Promise<void> {
  const folder = args.get('dataset');
  if (!folder) throw new Error('usage: npm run bench:lexical-cv -- --dataset <BEIR folder> [--split train] [--folds 5]');
  const split = args.get('split') ?? 'train';
  const dataset = loadBeir(folder, split);
  const data = await collect(dataset);
  const docOf = new Map(data.chunks.map((chunk) => [chunk.id, chunk.doc]));
  const queryIds = dataset.queries.map((query) => query.id);
  const analysed = new Map<string, Map<string, number>>();
  const names: string[] = [];
  // nDCG@10 and Recall@100 of every candidate on every query.
  const ndcg: Float64Array[] = [];
  const recall: Float64Array[] = [];
  const record = (name: string, rank: (id: string) => string[]) => {
    names.push(name);
    const n = new Float64Array(queryIds.length);
    const r = new Float64Array(queryIds.length);
    queryIds.forEach((id, i) => {
      const scores = scoreRankings(new Map([[id, rank(id)]]), dataset.qrels, [id]);
      n[i] = scores.ndcg10;
      r[i] = scores.recall100;
    });
    ndcg.push(n);
    recall.push(r);
  };
  const started = performance.now();
  for (const variant of lexicalVariants()) {
    const lexical = lexicalRuns(data, dataset, variant, analysed);
    for (const aggregate of ['best', 'sum'] as const) {
      for (const weight of [0, 0.2, 0.3, 0.4, 0.5]) {
        if (aggregate === 'sum' && variant.feedback !== null && weight !== 0.3) continue;
        record(`${variant.name} vector=${weight} docs=${aggregate}`, (id) => {
          const fused =
            weight === 0
              ? (lexical.get(id) as ScoredId[])
              : fuseByScore([
                  { hits: data.vector.get(id) as ScoredId[], weight },
                  { hits: lexical.get(id) as ScoredId[], weight: 1 },
                ]);
          return documentsOf(fused.slice(0, DEPTH), docOf, aggregate);
        });
      }
    }
  }
  console.log(`${names.length} candidates scored in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  const { foldRows, candidateRows, weighted } = crossValidate({
    names,
    ndcg,
    recall,
    queryIds,
    folds: FOLDS,
    seed: SEED,
    shipped: names.indexOf('bm25 k1=1.2 b=0.75 vector=0.3 docs=best'),
  });
  printTable(`${FOLDS}-fold cross-validation on ${basename(folder)} ${split} (${queryIds.length} queries)`, foldRows);
  const heldOut = weighted('held-out nDCG@10');
  const heldOutRecall = weighted('held-out R@100');
  console.log(`held-out over all folds: nDCG@10 ${heldOut.toFixed(4)}, Recall@100 ${heldOutRecall.toFixed(4)}`);
  printTable('Candidates, all queries (top 30)', candidateRows.slice(0, 30));
  const reference = candidateRows.filter((row) =>
    /^bm25 k1=1.2 b=0.75 (rm3 d=10 t=10 w=0.5 )?vector=(0|0.3) docs=best$/.test(row.candidate),
  );
  printTable('Reference rows', reference);
  writeResult(`lexical-cv-${basename(folder)}-${split}`, {
    dataset: basename(folder),
    split,
    folds: FOLDS,
    seed: SEED,
    queries: queryIds.length,
    candidateCount: candidateRows.length,
    foldRows,
    heldOut: { ndcg10: heldOut, recall100: heldOutRecall },
    reference,
    // The best 100 of all queries: the whole list is over a thousand rows.
    candidates: candidateRows.slice(0, 100),
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
