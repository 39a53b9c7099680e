/**
 * bench:rerank-cv — does a reranker that needs no weights help on unseen queries? Cross-validated
 * on a BEIR split the way bench:fusion chooses a fusion.
 *
 *   node dist/benchmarks/rerank-cv.js --dataset "$RAGDESK_DATASETS_DIR/datasets/scifact" [--split train] [--folds 5]
 *
 * Takes each query's hybrid top 100 through the public API, then reorders it by the fused score
 * plus a weight times a proximity feature of the query's terms in the passage (scaled to 0..1 by
 * the list's best): `pairs`, the share of the query's adjacent term pairs found within 3 words of
 * each other in the passage; `span`, the sum over pairs of query terms of 1 / (their least distance
 * in the passage)². Per fold, the (feature, weight) best on the other folds is scored on the held-out
 * fold beside the weight 0 (the default order).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { openRagdesk } from '../adapters/node.js';
import { loadBeir, scoreRankings, type BeirDataset } from '../adapters/cli/beir.js';
import { queryStems, scanWords, stem } from '../adapters/bm25/lexical-terms.js';
import { indexBeirCorpus } from './lib/beir-ragdesk.js';
import { flags, printTable, writeResult } from './lib/report.js';
import { folds } from './lib/folds.js';

interface Candidate {
  doc: string;
  fused: number;
  pairs: number;
  span: number;
}

interface QueryList {
  id: string;
  hits: Candidate[];
}

const args = flags(process.argv.slice(2));
const FOLDS = Number(args.get('folds') ?? 5);
const SEED = Number(args.get('seed') ?? 1);
const FEATURES = ['pairs', 'span'] as const;
const WEIGHTS = [0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5];

/** Positions of each query term in the passage. */
function positions(terms: readonly string[], text: string): Map<string, number[]> {
  const wanted = new Set(terms);
  const found = new Map<string, number[]>();
  let at = 0;
  scanWords(text, (word) => {
    const term = stem(word);
    if (wanted.has(term)) {
      const list = found.get(term) ?? [];
      list.push(at);
      found.set(term, list);
    }
    at++;
  });
  return found;
}

function leastDistance(a: readonly number[], b: readonly number[]): number {
  let best = Infinity;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    best = Math.min(best, Math.abs(a[i]! - b[j]!));
    if (a[i]! < b[j]!) i++;
    else j++;
  }
  return best;
}

function features(terms: readonly string[], text: string): { pairs: number; span: number } {
  const found = positions(terms, text);
  let adjacent = 0;
  for (let i = 0; i + 1 < terms.length; i++) {
    const a = found.get(terms[i]!);
    const b = found.get(terms[i + 1]!);
    if (a && b && leastDistance(a, b) <= 3) adjacent++;
  }
  let span = 0;
  const present = terms.filter((term) => found.has(term));
  for (let i = 0; i < present.length; i++) {
    for (let j = i + 1; j < present.length; j++) {
      const distance = leastDistance(found.get(present[i]!)!, found.get(present[j]!)!);
      span += 1 / Math.max(1, distance) ** 2;
    }
  }
  return { pairs: terms.length > 1 ? adjacent / (terms.length - 1) : 0, span };
}

function rank(list: QueryList, feature: (typeof FEATURES)[number], weight: number): string[] {
  const best = Math.max(...list.hits.map((hit) => hit[feature]), 0) || 1;
  const order = list.hits
    .map((hit, i) => ({ hit, i, score: hit.fused + (weight * hit[feature]) / best }))
    .sort((a, b) => b.score - a.score || a.i - b.i);
  const seen = new Set<string>();
  for (const { hit } of order) seen.add(hit.doc);
  return [...seen];
}

async function collect(dataset: BeirDataset): Promise<QueryList[]> {
  const dir = mkdtempSync(join(tmpdir(), 'ragdesk-bench-rerank-'));
  try {
    const ragdesk = openRagdesk({ dataDir: dir, env: {} });
    const datastore = await ragdesk.datastores.create({ name: 'rerank' });
    const seconds = await indexBeirCorpus(datastore, dataset);
    console.log(`indexed ${dataset.corpus.length} documents in ${seconds.toFixed(1)} s`);
    const lists: QueryList[] = [];
    for (const query of dataset.queries) {
      const terms = queryStems(query.text, 64);
      const fragments = await datastore.query({ query: query.text, topK: 100 });
      lists.push({
        id: query.id,
        hits: fragments.map((fragment) => ({
          doc: String(fragment.metadata.beir_id ?? fragment.datasource_name),
          fused: fragment.fusion_score ?? 0,
          ...features(terms, fragment.text),
        })),
      });
    }
    await ragdesk.close();
    return lists;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const folder = args.get('dataset');
  if (!folder) throw new Error('usage: node dist/benchmarks/rerank-cv.js --dataset <BEIR folder> [--split train] [--folds 5]');
  const split = args.get('split') ?? 'train';
  const dataset = loadBeir(folder, split);
  const lists = await collect(dataset);
  const settings = FEATURES.flatMap((feature) => WEIGHTS.map((weight) => ({ feature, weight, name: `${feature} w=${weight}` })));
  const table = settings.map((setting) =>
    lists.map((list) => scoreRankings(new Map([[list.id, rank(list, setting.feature, setting.weight)]]), dataset.qrels, [list.id]).ndcg10),
  );
  const indexOf = new Map(lists.map((list, i) => [list.id, i]));
  const mean = (s: number, ids: readonly string[]) => ids.reduce((sum, id) => sum + table[s]![indexOf.get(id)!]!, 0) / ids.length;
  const baseline = settings.findIndex((setting) => setting.weight === 0);
  const split5 = folds(
    lists.map((list) => list.id),
    FOLDS,
    SEED,
  );
  const foldRows = split5.map((held, f) => {
    const training = split5.filter((_, g) => g !== f).flat();
    let best = baseline;
    settings.forEach((_, s) => {
      if (mean(s, training) > mean(best, training)) best = s;
    });
    return {
      fold: f + 1,
      chosen: settings[best]!.name,
      'held-out nDCG@10': mean(best, held),
      'held-out default order': mean(baseline, held),
      gain: mean(best, held) - mean(baseline, held),
    };
  });
  printTable(`${FOLDS}-fold cross-validation on ${basename(folder)} ${split} (${lists.length} queries)`, foldRows);
  const everyQuery = lists.map((list) => list.id);
  const rows = settings.map((setting, s) => ({ setting: setting.name, 'nDCG@10': mean(s, everyQuery) }));
  printTable('Settings, all queries', rows);
  writeResult(`rerank-cv-${basename(folder)}-${split}`, {
    dataset: basename(folder),
    split,
    folds: FOLDS,
    seed: SEED,
    foldRows,
    settings: rows,
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
