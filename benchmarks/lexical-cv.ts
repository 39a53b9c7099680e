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
import Database from 'better-sqlite3';
import { openRagdesk } from '../adapters/node.js';
import { loadBeir, scoreRankings, type BeirDataset } from '../adapters/cli/beir.js';
import { LexicalIndex } from '../adapters/bm25/lexical-index.js';
import { queryStems, scanWords, stem } from '../adapters/bm25/lexical-terms.js';
import { ENGLISH_STOPWORDS } from '../src/text/stopwords.js';
import { expandQuery, type FeedbackDocument } from '../src/text/relevance-feedback.js';
import { fuseByScore } from '../src/datastores/score-fusion.js';
import type { ScoredId } from '../src/ports/records.js';
import { indexBeirCorpus } from './lib/beir-ragdesk.js';
import { folds } from './lib/folds.js';
import { flags, printTable, writeResult } from './lib/report.js';

const args = flags(process.argv.slice(2));
const FOLDS = Number(args.get('folds') ?? 5);
const SEED = Number(args.get('seed') ?? 1);
const DEPTH = 100;

interface Chunk {
  id: string;
  doc: string;
  text: string;
}

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
    const db = new Database(join(dir, 'ragdesk.db'), { readonly: true });
    const rows = db
      .prepare('SELECT c.id AS id, c.text AS text, d.metadata AS metadata FROM chunks c JOIN datasources d ON d.id = c.datasource_id')
      .all() as { id: string; text: string; metadata: string }[];
    db.close();
    const chunks = rows.map((row) => ({
      id: row.id,
      text: row.text,
      doc: String((JSON.parse(row.metadata) as { beir_id: string }).beir_id),
    }));
    return { chunks, vector };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A chunk's stems with counts, stopwords and one-letter words left out: what feedback draws words from. */
function feedbackCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  scanWords(text, (word) => {
    if (word.length < 2 || ENGLISH_STOPWORDS.has(word) || /^\d+$/.test(word)) return;
    const term = stem(word);
    counts.set(term, (counts.get(term) ?? 0) + 1);
  });
  return counts;
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
  const indexOf = new Map(queryIds.map((id, i) => [id, i]));
  const mean = (table: Float64Array[], c: number, ids: readonly string[]) =>
    ids.reduce((sum, id) => sum + (table[c] as Float64Array)[indexOf.get(id) as number]!, 0) / ids.length;
  const split5 = folds(queryIds, FOLDS, SEED);
  const shipped = names.indexOf('bm25 k1=1.2 b=0.75 vector=0.3 docs=best');
  const foldRows = split5.map((held, f) => {
    const training = split5.filter((_, g) => g !== f).flat();
    let best = 0;
    names.forEach((_, c) => {
      if (mean(ndcg, c, training) > mean(ndcg, best, training)) best = c;
    });
    return {
      fold: f + 1,
      chosen: names[best] as string,
      'train nDCG@10': mean(ndcg, best, training),
      'held-out nDCG@10': mean(ndcg, best, held),
      'held-out R@100': mean(recall, best, held),
      'default nDCG@10': mean(ndcg, shipped, held),
      gain: mean(ndcg, best, held) - mean(ndcg, shipped, held),
    };
  });
  printTable(`${FOLDS}-fold cross-validation on ${basename(folder)} ${split} (${queryIds.length} queries)`, foldRows);
  const heldOut =
    foldRows.reduce((sum, row) => sum + row['held-out nDCG@10'] * (split5[row.fold - 1] as string[]).length, 0) / queryIds.length;
  const heldOutRecall =
    foldRows.reduce((sum, row) => sum + row['held-out R@100'] * (split5[row.fold - 1] as string[]).length, 0) / queryIds.length;
  console.log(`held-out over all folds: nDCG@10 ${heldOut.toFixed(4)}, Recall@100 ${heldOutRecall.toFixed(4)}`);
  const candidateRows = names
    .map((name, c) => ({
      candidate: name,
      'nDCG@10': mean(ndcg, c, queryIds),
      'Recall@100': mean(recall, c, queryIds),
      'worst fold - default': Math.min(...split5.map((held) => mean(ndcg, c, held) - mean(ndcg, shipped, held))),
      'best fold - default': Math.max(...split5.map((held) => mean(ndcg, c, held) - mean(ndcg, shipped, held))),
    }))
    .sort((a, b) => b['nDCG@10'] - a['nDCG@10']);
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
