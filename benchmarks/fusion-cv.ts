/**
 * bench:fusion — which hybrid fusion generalises, by cross-validation on a BEIR split.
 *
 *   npm run bench:fusion -- --dataset "$RAGDESK_DATASETS_DIR/datasets/scifact" [--split train] [--folds 5]
 *
 * Indexes the corpus once through the public API (embedded default, offline embedder), takes each
 * query's top-100 chunks from the vector and the lexical retriever with their scores, then scores
 * every candidate fusion offline. Candidates: rank-based (RRF) with a vector weight, constant k and
 * candidate depth; score-based (each list's scores scaled to 0..1 by its own best, then a convex
 * mix); and the halves. Per fold, the candidate with the best mean nDCG@10 on the other folds is
 * evaluated on the held-out fold: the spread of those held-out figures is what a default can
 * promise, and a candidate whose per-fold choice moves around is a per-dataset tuning, not a default.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { openRagdesk } from '../adapters/node.js';
import { loadBeir, scoreRankings, type BeirDataset } from '../adapters/cli/beir.js';
import { indexBeirCorpus } from './lib/beir-ragdesk.js';
import { flags, printTable, writeResult } from './lib/report.js';
import { reciprocalRankFusion } from '../src/datastores/fusion.js';
import { fuseByScore, type ScoredList } from '../src/datastores/score-fusion.js';
import { folds } from './lib/folds.js';

interface Hit {
  id: string;
  doc: string;
  score: number;
}

interface QueryLists {
  id: string;
  vector: Hit[];
  lexical: Hit[];
}

interface Candidate {
  name: string;
  rank(lists: QueryLists): string[];
}

const args = flags(process.argv.slice(2));
const FOLDS = Number(args.get('folds') ?? 5);
const SEED = Number(args.get('seed') ?? 1);

/** Documents in order of their best chunk. */
function documents(hits: readonly { doc: string }[]): string[] {
  const seen = new Set<string>();
  for (const hit of hits) seen.add(hit.doc);
  return [...seen];
}

function rrf(lists: QueryLists, weight: number, k: number, depth: number): string[] {
  const docOf = new Map<string, string>();
  for (const hit of [...lists.vector, ...lists.lexical]) docOf.set(hit.id, hit.doc);
  const top = (hits: readonly Hit[]) => hits.slice(0, depth);
  const fused = reciprocalRankFusion([top(lists.vector), top(lists.lexical)], { k, weights: [weight, 1] });
  return documents(fused.map((hit) => ({ doc: docOf.get(hit.id)! })));
}

function byScore(lists: QueryLists, weight: number, depth: number): string[] {
  const docOf = new Map<string, string>();
  for (const hit of [...lists.vector, ...lists.lexical]) docOf.set(hit.id, hit.doc);
  const inputs: ScoredList[] = [
    { hits: lists.vector.slice(0, depth), weight },
    { hits: lists.lexical.slice(0, depth), weight: 1 },
  ];
  return documents(fuseByScore(inputs).map((hit) => ({ doc: docOf.get(hit.id) as string })));
}

function candidates(): Candidate[] {
  const list: Candidate[] = [
    { name: 'lexical', rank: (lists) => documents(lists.lexical) },
    { name: 'vector', rank: (lists) => documents(lists.vector) },
  ];
  for (const depth of [20, 50, 100]) {
    for (const k of [10, 60]) {
      for (const weight of [0.1, 0.2, 0.3, 0.5, 0.7, 1]) {
        list.push({ name: `rrf w=${weight} k=${k} depth=${depth}`, rank: (lists) => rrf(lists, weight, k, depth) });
      }
    }
    for (const weight of [0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 1]) {
      list.push({ name: `score w=${weight} depth=${depth}`, rank: (lists) => byScore(lists, weight, depth) });
    }
  }
  return list;
}

async function collect(dataset: BeirDataset): Promise<QueryLists[]> {
  const dir = mkdtempSync(join(tmpdir(), 'ragdesk-bench-fusion-'));
  try {
    const ragdesk = openRagdesk({ dataDir: dir, env: {} });
    const datastore = await ragdesk.datastores.create({ name: 'fusion' });
    const seconds = await indexBeirCorpus(datastore, dataset);
    console.log(`indexed ${dataset.corpus.length} documents in ${seconds.toFixed(1)} s (embedder ${ragdesk.adapters.embeddings})`);
    const result: QueryLists[] = [];
    for (const query of dataset.queries) {
      const hits = async (mode: 'vector' | 'lexical') =>
        (await datastore.query({ query: query.text, topK: 100, mode })).map((fragment) => ({
          id: fragment.chunk_id,
          doc: String(fragment.metadata.beir_id ?? fragment.datasource_name),
          // Raw retriever values where a build reports them apart from the 0..1 score.
          score: rawScore(fragment, mode),
        }));
      result.push({ id: query.id, vector: await hits('vector'), lexical: await hits('lexical') });
    }
    await ragdesk.close();
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function rawScore(fragment: { score: number }, mode: 'vector' | 'lexical'): number {
  const raw = (fragment as unknown as Record<string, unknown>)[mode === 'vector' ? 'vector_score' : 'lexical_score'];
  return typeof raw === 'number' ? raw : fragment.score;
}

async function main(): Promise<void> {
  const folder = args.get('dataset');
  if (!folder) throw new Error('usage: npm run bench:fusion -- --dataset <BEIR folder> [--split train] [--folds 5]');
  const split = args.get('split') ?? 'train';
  const dataset = loadBeir(folder, split);
  const lists = await collect(dataset);
  const all = candidates();
  // nDCG@10 of every candidate on every query, computed once.
  const table = all.map((candidate) =>
    lists.map((query) => scoreRankings(new Map([[query.id, candidate.rank(query)]]), dataset.qrels, [query.id]).ndcg10),
  );
  const indexOf = new Map(lists.map((query, i) => [query.id, i]));
  const mean = (c: number, ids: readonly string[]) =>
    ids.reduce((sum, id) => sum + (table[c] as number[])[indexOf.get(id) as number]!, 0) / ids.length;
  const split5 = folds(
    lists.map((query) => query.id),
    FOLDS,
    SEED,
  );
  const lexicalIndex = 0;
  const foldRows = split5.map((held, f) => {
    const training = split5.filter((_, g) => g !== f).flat();
    let best = 0;
    all.forEach((_, c) => {
      if (mean(c, training) > mean(best, training)) best = c;
    });
    return {
      fold: f + 1,
      chosen: (all[best] as Candidate).name,
      'train nDCG@10': mean(best, training),
      'held-out nDCG@10': mean(best, held),
      'held-out lexical': mean(lexicalIndex, held),
      'held-out vector': mean(1, held),
    };
  });
  printTable(`${FOLDS}-fold cross-validation on ${basename(folder)} ${split} (${lists.length} queries)`, foldRows);
  const everyQuery = lists.map((query) => query.id);
  // Each candidate: mean over all queries and its worst fold against lexical.
  const candidateRows = all
    .map((candidate, c) => ({
      candidate: candidate.name,
      'nDCG@10': mean(c, everyQuery),
      'worst fold - lexical': Math.min(...split5.map((held) => mean(c, held) - mean(lexicalIndex, held))),
      'best fold - lexical': Math.max(...split5.map((held) => mean(c, held) - mean(lexicalIndex, held))),
    }))
    .sort((a, b) => b['nDCG@10'] - a['nDCG@10']);
  printTable('Candidates, all queries (top 25)', candidateRows.slice(0, 25));
  const named = (name: string) => candidateRows.find((row) => row.candidate === name);
  printTable(
    'Reference rows',
    ['lexical', 'vector', 'rrf w=0.3 k=60 depth=50', 'rrf w=1 k=60 depth=50'].map((name) => named(name)).filter((row) => row !== undefined),
  );
  writeResult(`fusion-cv-${basename(folder)}-${split}`, {
    dataset: basename(folder),
    split,
    folds: FOLDS,
    seed: SEED,
    queries: lists.length,
    foldRows,
    candidates: candidateRows,
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
